"""`pool.xla()`: a pool's send and recv as JAX functions, usable in `jit` and `lax.scan`.

Both are calls to typed XLA FFI handlers written in C++ (csrc/xla/), registered
with JAX once per process. Every call takes the pool handle (uint8[8]) as its
first argument and returns it as its first result, aliased, so that XLA runs
the calls of a computation in the order the handle threads them; calls are
side-effecting, so XLA never drops or duplicates them. `recv` returns exactly
the structure the pool's own `recv()` returns for its env_type, as JAX arrays.

CPU only: the handlers are registered for JAX's CPU platform.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from envpool_core import _core

if TYPE_CHECKING:
    from envpool_core.pool import EnvPool

_SEND_TARGET = "envpool_core_send"
_RECV_TARGET = "envpool_core_recv"
_MIN_JAX = (0, 4, 38)  # the first release with `jax.ffi` (typed FFI, ffi_call aliasing)
_registered = False


def _require_jax() -> Any:
    """Imports JAX, checking it is recent enough for the typed FFI."""
    try:
        import jax
    except ImportError as e:
        raise RuntimeError("xla() needs JAX: pip install jax") from e
    from envpool_core.gym_api import version_tuple

    ffi = getattr(jax, "ffi", None)
    if version_tuple(jax.__version__) < _MIN_JAX or not hasattr(ffi, "ffi_call"):
        raise RuntimeError(
            f"xla() needs jax >= {'.'.join(map(str, _MIN_JAX))} (the jax.ffi module), "
            f"found jax {jax.__version__}"
        )
    return jax


def _register(jax: Any) -> None:
    global _registered
    if _registered:
        return
    if not hasattr(_core, "xla_send_handler"):
        raise RuntimeError(
            "this envpool_core build has no xla(): jaxlib's XLA FFI headers were not found "
            "when it was built (install jaxlib and rebuild)"
        )
    jax.ffi.register_ffi_target(_SEND_TARGET, _core.xla_send_handler(), platform="cpu")
    jax.ffi.register_ffi_target(_RECV_TARGET, _core.xla_recv_handler(), platform="cpu")
    _registered = True


def _refuse_vmap(jax: Any, fn: Any, name: str) -> Any:
    """`fn` under `jax.vmap` raises a clear error: the pool has one batch of envs."""
    wrapped = jax.custom_batching.custom_vmap(fn)

    @wrapped.def_vmap
    def _rule(axis_size: int, in_batched: Any, *args: Any) -> Any:
        raise ValueError(
            f"xla() {name} cannot be used under jax.vmap: a pool steps one batch of envs; "
            "make a pool with more envs (num_envs) instead of vmapping over pools"
        )

    return wrapped


def make_xla(pool: EnvPool) -> tuple:
    """Returns `(handle, recv, send, step)` for `pool` (see the module docstring).

    - `recv(handle) -> (handle, outputs)`: waits for the next batch; `outputs`
      is structured as `pool.recv()`.
    - `send(handle, action, env_id=None) -> handle`: `env_id` defaults to all
      envs; in async mode pass the batch's `env_id`.
    - `step(handle, action, env_id=None) -> (handle, outputs)`: recv after send.
    """
    jax = _require_jax()
    if pool.closed:
        raise RuntimeError("xla() on a closed pool: make a new pool")
    _register(jax)
    jnp = jax.numpy
    pool_id = np.int64(pool._pool.xla_target_id())
    handle = np.frombuffer(pool_id.tobytes(), dtype=np.uint8).copy()
    handle_type = jax.ShapeDtypeStruct(handle.shape, handle.dtype)
    column_types = [
        jax.ShapeDtypeStruct((pool.batch_size, *c["shape"]),
                             jax.dtypes.canonicalize_dtype(np.dtype(c["dtype"])))
        for c in pool.spec.columns
    ]
    action_spec = pool.spec.action_column
    action_dtype = jax.dtypes.canonicalize_dtype(np.dtype(action_spec["dtype"]))
    action_shape = tuple(action_spec["shape"])
    all_env_ids = np.arange(pool.num_envs, dtype=np.int32)

    recv_ffi = jax.ffi.ffi_call(_RECV_TARGET, [handle_type, *column_types],
                                has_side_effect=True, input_output_aliases={0: 0})
    send_ffi = jax.ffi.ffi_call(_SEND_TARGET, handle_type, has_side_effect=True,
                                input_output_aliases={0: 0})
    recv_call = _refuse_vmap(jax, lambda h: recv_ffi(h, pool_id=pool_id), "recv")
    send_call = _refuse_vmap(jax, lambda h, a, i: send_ffi(h, a, i, pool_id=pool_id), "send")

    def recv(handle: Any) -> tuple[Any, Any]:
        out = recv_call(handle)
        return out[0], pool._arrange(tuple(out[1:]), reset=False)

    def send(handle: Any, action: Any, env_id: Any = None) -> Any:
        if isinstance(action, dict):
            env_id = action.get("env_id", env_id)
            action = action["action"]
        action = jnp.asarray(action)
        if action.dtype != action_dtype:
            pool._check_action_dtype(action.dtype)
            action = action.astype(action_dtype)
        if action.ndim != 1 + len(action_shape) or action.shape[1:] != action_shape:
            raise ValueError(f"action has shape {action.shape}; expected (n, *{action_shape}) "
                             f"for n envs")
        if env_id is None:
            if action.shape[0] != pool.num_envs:
                raise ValueError(
                    f"got {action.shape[0]} actions but env_id is None: pass env_id (in async "
                    f"mode, the env_id of the batch recv returned) or one action per env "
                    f"({pool.num_envs})"
                )
            env_id = all_env_ids
        env_id = jnp.asarray(env_id)
        if not jnp.issubdtype(env_id.dtype, jnp.integer):
            raise TypeError(f"env_id must be integers, got dtype {env_id.dtype}")
        env_id = env_id.astype(jnp.int32).reshape(-1)
        if env_id.shape[0] != action.shape[0]:
            raise ValueError(f"{action.shape[0]} actions for {env_id.shape[0]} env ids")
        return send_call(handle, action, env_id)

    def step(handle: Any, action: Any, env_id: Any = None) -> tuple[Any, Any]:
        return recv(send(handle, action, env_id))

    return handle, recv, send, step
