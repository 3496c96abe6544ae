"""Shared pytest settings."""

import os

# Keep numpy/torch from starting thread pools that compete with the engine's workers.
os.environ.setdefault("OMP_NUM_THREADS", "1")
