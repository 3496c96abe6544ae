// The swimmer domain (dm_control/suite/swimmer.py): swimmer6 and swimmer15, a
// chain of 6 or 15 links swimming to a target placed at random each episode (in
// the model: each env has a model of its own). dm_control builds the chain by
// editing swimmer.xml (_make_model); so does this file, to the same model.
#include <cmath>
#include <sstream>
#include <string>

#include "dm_control/randomizers.h"
#include "dm_control/rewards.h"
#include "dm_control/suite_env.h"
#include "dm_control/suite_task.h"
#include "dm_control/xml_edit.h"
#include "mujoco/model_names.h"

namespace envpool_core::dm_control {

namespace {

// _make_model(n_bodies): n - 1 segments, each with a joint of range
// ±360/n degrees, a motor and a velocimeter and gyro at its site; the
// tracking cameras moved out in proportion to the length.
std::string MakeSwimmerXml(std::string xml, int n_bodies) {
  const char* what = "swimmer";
  std::string limit = XmlNumber(360.0 / n_bodies);
  std::ostringstream chain, actuators, sensors;
  for (int i = 0; i < n_bodies - 1; ++i) {
    std::string s = std::to_string(i);
    chain << "<body name=\"segment_" << s << "\" pos=\"0 .1 0\">"
          << "<geom class=\"visual\" name=\"visual_" << s << "\"/>"
          << "<geom class=\"inertial\" name=\"inertial_" << s << "\"/>"
          << "<site name=\"site_" << s << "\"/>"
          << "<joint name=\"joint_" << s << "\" range=\"-" << limit << " " << limit << "\"/>";
    actuators << "<motor name=\"motor_" << s << "\" joint=\"joint_" << s << "\"/>";
    sensors << "<velocimeter name=\"velocimeter_" << s << "\" site=\"site_" << s << "\"/>"
            << "<gyro name=\"gyro_" << s << "\" site=\"site_" << s << "\"/>";
  }
  for (int i = 0; i < n_bodies - 1; ++i) chain << "</body>";
  InsertAfter(&xml, "<site name=\"head\"/>", chain.str(), what);
  InsertBefore(&xml, "</mujoco>",
               "<actuator>" + actuators.str() + "</actuator><sensor>" + sensors.str() +
                   "</sensor>",
               what);
  double scale = n_bodies / 6.0;
  for (const char* camera : {"<camera name=\"tracking1\"", "<camera name=\"tracking2\""}) {
    std::istringstream pos(GetAttribute(xml, camera, "pos", what));
    std::string scaled;
    for (double x; pos >> x;) {
      if (!scaled.empty()) scaled += ' ';
      scaled += XmlNumber(x * scale);
    }
    SetAttribute(&xml, camera, "pos", scaled, what);
  }
  return xml;
}

class SwimmerEnv final : public SuiteEnv {
 public:
  SwimmerEnv(const EnvSpec& spec, std::uint64_t seed, SuiteModel model)
      : SuiteEnv(spec, seed, std::move(model), /*private_model=*/true),
        target_(mujoco::NameId(model_, mjOBJ_GEOM, "target")),
        nose_(mujoco::NameId(model_, mjOBJ_GEOM, "nose")),
        head_(mujoco::NameId(model_, mjOBJ_BODY, "head")),
        target_light_(mujoco::NameId(model_, mjOBJ_LIGHT, "target_light")) {}

 private:
  // EnvPool's test-build info: the target's place.
  void WriteStartInfo(OutputRow& row, int first) const override {
    mju_copy(row.Info<double>(first), model_->geom_pos + 3 * target_, 2);
  }

  void InitializeEpisode() override {
    RandomizeLimitedAndRotationalJoints(model_, data_, &random_);
    bool close_target = random_.RandomSample() < 0.2;
    double target_box = close_target ? 0.3 : 2.0;
    double x = random_.Uniform(-target_box, target_box);
    double y = random_.Uniform(-target_box, target_box);
    private_model_->geom_pos[3 * target_] = x;
    private_model_->geom_pos[3 * target_ + 1] = y;
    private_model_->light_pos[3 * target_light_] = x;
    private_model_->light_pos[3 * target_light_ + 1] = y;
  }

  // The target seen from the nose in the head's frame, x and y: (target - nose)
  // . R, summed as numpy's dot (fused multiply-adds, in order).
  void NoseToTarget(double* out) const {
    double global[3];
    mju_sub3(global, data_->geom_xpos + 3 * target_, data_->geom_xpos + 3 * nose_);
    const double* r = data_->xmat + 9 * head_;
    for (int j = 0; j < 2; ++j) {
      double s = 0.0;
      for (int i = 0; i < 3; ++i) s = std::fma(global[i], r[3 * i + j], s);
      out[j] = s;
    }
  }

  void WriteObservation(OutputRow& row) override {
    mju_copy(row.Obs<double>(0), data_->qpos + 3, model_->nq - 3);
    NoseToTarget(row.Obs<double>(1));
    // Each link's local linear x, y and angular z velocity: sensors from the
    // 13th value on, six per link (velocimeter, gyro).
    double* velocities = row.Obs<double>(2);
    for (int k = 12; k + 6 <= model_->nsensordata; k += 6) {
      *velocities++ = data_->sensordata[k];
      *velocities++ = data_->sensordata[k + 1];
      *velocities++ = data_->sensordata[k + 5];
    }
  }

  double Reward() override {
    double target_size = model_->geom_size[3 * target_];
    double to_target[2];
    NoseToTarget(to_target);
    return Tolerance(Norm(to_target, 2), 0.0, target_size, 5 * target_size, Sigmoid::kLongTail);
  }

  int target_, nose_, head_, target_light_;
};

}  // namespace

void RegisterSwimmer(TaskRegistry& registry, const std::string& suite_dir) {
  // Control timestep 0.03 s over the model's 0.002 s.
  for (int n : {6, 15}) {
    AddSuiteTask(registry, suite_dir,
                 {"swimmer", "swimmer" + std::to_string(n), 15,
                  {{"joints", {n - 1}}, {"to_target", {2}}, {"body_velocities", {3 * n}}},
                  SuiteEnvFactory<SwimmerEnv>(), "", {{"target0", {2}}}},
                 [n](const std::string& xml) { return MakeSwimmerXml(xml, n); });
  }
}

}  // namespace envpool_core::dm_control
