// The cartpole domain (dm_control/suite/cartpole.py): balance and swingup with
// one pole, each with a smooth or a sparse reward, and swingup with two or three
// poles, whose model dm_control builds by editing cartpole.xml (_make_model);
// so does this file, to the same model.
#include <sstream>
#include <string>

#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"

namespace envpool_core::dm_control {

namespace {

// _make_model(n_poles): poles 2..n, each on the one before, the floor and the
// cameras moved down and back.
std::string MakeCartpoleXml(std::string xml, int n_poles) {
  const char* what = "cartpole";
  std::ostringstream chain;
  for (int i = 2; i <= n_poles; ++i) {
    std::string s = std::to_string(i);
    chain << "<body name=\"pole_" << s << "\" pos=\"0 0 1\" childclass=\"pole\">"
          << "<joint name=\"hinge_" << s << "\"/><geom name=\"pole_" << s << "\"/>";
  }
  for (int i = 2; i <= n_poles; ++i) chain << "</body>";
  InsertAfter(&xml, "<geom name=\"pole_1\"/>", chain.str(), what);
  SetAttribute(&xml, "<geom name=\"floor\"", "pos",
               "0 0 " + XmlNumber(1.0 - n_poles - 0.05), what);
  SetAttribute(&xml, "<camera name=\"fixed\"", "pos",
               "0 " + std::to_string(-1 - 2 * n_poles) + " 1", what);
  SetAttribute(&xml, "<camera name=\"lookatcart\"", "pos",
               "0 " + std::to_string(-2 * n_poles) + " 2", what);
  return xml;
}

class CartpoleEnv final : public SuiteEnv {
 public:
  CartpoleEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model, bool swing_up,
              bool sparse)
      : SuiteEnv(spec, seed, std::move(model)), swing_up_(swing_up), sparse_(sparse) {}

 private:
  // qpos: the slider, then one hinge per pole; bodies: world, cart, the poles.
  void InitializeEpisode() override {
    int nv = model_->nv;
    if (swing_up_) {
      data_->qpos[0] = 0.01 * random_.StandardNormal();
      data_->qpos[1] = M_PI + 0.01 * random_.StandardNormal();
      for (int i = 2; i < model_->nq; ++i) data_->qpos[i] = 0.1 * random_.StandardNormal();
    } else {
      data_->qpos[0] = random_.Uniform(-0.1, 0.1);
      for (int i = 1; i < nv; ++i) data_->qpos[i] = random_.Uniform(-0.034, 0.034);
    }
    for (int i = 0; i < nv; ++i) data_->qvel[i] = 0.01 * random_.StandardNormal();
  }

  // The cosine of each pole's angle to the vertical (its zz), and its xz.
  double PoleZZ(int pole) const { return data_->xmat[9 * (2 + pole) + 8]; }
  double PoleXZ(int pole) const { return data_->xmat[9 * (2 + pole) + 2]; }
  int NumPoles() const { return model_->nbody - 2; }

  void WriteObservation(OutputRow& row) override {
    double* position = row.Obs<double>(0);
    *position++ = data_->qpos[0];
    for (int p = 0; p < NumPoles(); ++p) {
      *position++ = PoleZZ(p);
      *position++ = PoleXZ(p);
    }
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
  }

  double Reward() override {
    double cart = data_->qpos[0];
    if (sparse_) {
      double cart_in_bounds = Tolerance(cart, -0.25, 0.25);
      double angle_in_bounds = 1.0;
      for (int p = 0; p < NumPoles(); ++p) angle_in_bounds *= Tolerance(PoleZZ(p), 0.995, 1.0);
      return cart_in_bounds * angle_in_bounds;
    }
    double upright = 0.0;
    for (int p = 0; p < NumPoles(); ++p) upright += (PoleZZ(p) + 1) / 2;
    upright /= NumPoles();
    double centered = (1 + Tolerance(cart, 0.0, 0.0, 2.0)) / 2;
    double small_control =
        (4 + Tolerance(data_->ctrl[0], 0.0, 0.0, 1.0, Sigmoid::kQuadratic, 0.0)) / 5;
    double small_velocity = 1.0;
    for (int i = 1; i < model_->nv; ++i) {
      small_velocity = std::min(small_velocity, Tolerance(data_->qvel[i], 0.0, 0.0, 5.0));
    }
    small_velocity = (1 + small_velocity) / 2;
    return upright * small_control * small_velocity * centered;
  }

  bool swing_up_;
  bool sparse_;
};

}  // namespace

void RegisterCartpole(TaskRegistry& registry, const std::string& suite_dir) {
  struct Task {
    const char* name;
    bool swing_up, sparse;
  };
  for (Task t : {Task{"balance", false, false}, Task{"balance_sparse", false, true},
                 Task{"swingup", true, false}, Task{"swingup_sparse", true, true}}) {
    AddSuiteTask(registry, suite_dir,
                 {"cartpole", t.name, 1, {{"position", {3}}, {"velocity", {2}}},
                  SuiteEnvFactory<CartpoleEnv>(t.swing_up, t.sparse)});
  }
  for (auto [name, poles] : {std::pair{"two_poles", 2}, std::pair{"three_poles", 3}}) {
    AddSuiteTask(registry, suite_dir,
                 {"cartpole", name, 1, {{"position", {1 + 2 * poles}}, {"velocity", {1 + poles}}},
                  SuiteEnvFactory<CartpoleEnv>(true, false)},
                 [n = poles](const std::string& xml) { return MakeCartpoleXml(xml, n); });
  }
}

}  // namespace envpool_core::dm_control
