// The LQR domain (dm_control/suite/lqr.py): lqr_2_1 and lqr_6_2, a chain of
// point masses on springs, n bodies of which the first m are actuated.
// dm_control builds the model (_make_model) from lqr.xml with each joint's
// stiffness and damping drawn from the task's RandomState when the environment
// is made; here the chain is built the same way, and each env draws its springs
// into a model of its own at creation and whenever it is reseeded, from the
// same numbers. Episodes end when the state is at the origin (discount 0).
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"

namespace envpool_core::dm_control {

namespace {

constexpr double kControlCostCoef = 0.1;
constexpr double kTerminalTol = 1e-6;
constexpr double kStiffnessLow = 15, kStiffnessHigh = 25;
constexpr double kDampingLow = 0, kDampingHigh = 0;

// _make_model's chain; the springs' values are set per env (see above).
std::string MakeLqrXml(std::string xml, int n_bodies, int n_actuators) {
  std::ostringstream chain, actuators, tendons;
  for (int b = 0; b < n_bodies; ++b) {
    std::string s = std::to_string(b);
    chain << "<body name=\"body_" << s << "\" pos=\"" << (b == 0 ? ".25 0 .1" : ".25 0 0")
          << "\"><joint name=\"joint_" << s << "\" stiffness=\"" << XmlNumber(kStiffnessLow)
          << "\" damping=\"0\"/><geom name=\"geom_" << s << "\"/><site name=\"site_" << s
          << "\"/>";
    if (b < n_actuators) actuators << "<motor name=\"motor_" << s << "\" joint=\"joint_" << s << "\"/>";
    if (b < n_bodies - 1) {
      tendons << "<spatial name=\"tendon_" << s << "\"><site site=\"site_" << s
              << "\"/><site site=\"site_" << b + 1 << "\"/></spatial>";
    }
  }
  for (int b = 0; b < n_bodies; ++b) chain << "</body>";
  const char* what = "lqr";
  InsertBefore(&xml, "</worldbody>", chain.str(), what);
  InsertBefore(&xml, "</mujoco>",
               "<actuator>" + actuators.str() + "</actuator><tendon>" + tendons.str() +
                   "</tendon>",
               what);
  return xml;
}

class LqrEnv final : public SuiteEnv {
 public:
  LqrEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        unit_(static_cast<std::size_t>(model_->nq)) {
    AfterSeed();
  }

 private:
  void AfterSeed() override {
    for (int j = 0; j < model_->njnt; ++j) {
      private_model_->jnt_stiffness[j] = random_.Uniform(kStiffnessLow, kStiffnessHigh);
      private_model_->dof_damping[model_->jnt_dofadr[j]] =
          random_.Uniform(kDampingLow, kDampingHigh);
    }
  }

  void InitializeEpisode() override {
    // A random direction, at distance sqrt(2) from the origin.
    int n = model_->nq;
    for (double& u : unit_) u = random_.StandardNormal();
    double norm = Norm(unit_.data(), n);
    for (int i = 0; i < n; ++i) data_->qpos[i] = std::sqrt(2.0) * unit_[i] / norm;
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos, model_->nq);
    mju_copy(row.Obs<double>(1), data_->qvel, model_->nv);
  }

  // np.dot of a vector with itself (fused multiply-adds, as numpy's).
  static double Dot(const double* x, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s = std::fma(x[i], x[i], s);
    return s;
  }

  double Reward() override {
    double state_cost = 0.5 * Dot(data_->qpos, model_->nq);
    double control_l2_norm = 0.5 * Dot(data_->ctrl, model_->nu);
    return 1 - (state_cost + control_l2_norm * kControlCostCoef);
  }

  std::optional<double> Termination() override {
    // The norm of the whole state: qpos, qvel, act.
    double s = 0.0;
    for (int i = 0; i < model_->nq; ++i) s = std::fma(data_->qpos[i], data_->qpos[i], s);
    for (int i = 0; i < model_->nv; ++i) s = std::fma(data_->qvel[i], data_->qvel[i], s);
    for (int i = 0; i < model_->na; ++i) s = std::fma(data_->act[i], data_->act[i], s);
    if (std::sqrt(s) < kTerminalTol) return 0.0;
    return std::nullopt;
  }

  std::vector<double> unit_;
};

}  // namespace

void RegisterLqr(TaskRegistry& registry, const std::string& suite_dir) {
  for (auto [bodies, actuators] : {std::pair{2, 1}, std::pair{6, 2}}) {
    std::string name = "lqr_" + std::to_string(bodies) + "_" + std::to_string(actuators);
    AddSuiteTask(registry, suite_dir,
                 {"lqr", name, 1, {{"position", {bodies}}, {"velocity", {bodies}}},
                  SuiteEnvFactory<LqrEnv>()},
                 [b = bodies, a = actuators](const std::string& xml) {
                   return MakeLqrXml(xml, b, a);
                 });
  }
}

}  // namespace envpool_core::dm_control
