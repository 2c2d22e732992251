// Makes the generated part of the fuzz targets' corpus (scripts/fuzz.sh runs it before fuzzing):
// what the toolkit's own generators and writers produce, one directory per target under DIR.
//   instance_reader  small instances of every generator (version 1, and 2 with hyperedges), one
//                    with pinned objects, one with a PE's background and speed
//   trace_reader     small traces in both formats: a moving storm, none, two, radiation, drift,
//                    creations and deletions (uniform and in a storm), every object deleted
//   vt_reader        the rank files export_vt writes for some of those traces
//   params           key=value settings of every parameter of every strategy, policy and
//                    predictor: its default, its bounds, each choice, a value out of range
//   elf_image_reader none (the toolkit makes no program images): its seeds are small real
//                    images in fuzz/corpus/elf_image_reader/ (fuzz/elf_image_seeds.sh)
// The repository keeps only a small seed corpus (fuzz/corpus/<target>/): inputs the fuzzer found
// that reach what no valid file does (the readers' rejections). Everything here is a pure
// function of the toolkit's code, so a run that regenerates it starts from the same inputs.
//   make_corpus DIR
#include <cmath>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "vela/lb/generate/generate.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/params.hpp"
#include "vela/lb/policy/policy.hpp"
#include "vela/lb/strategies/registry.hpp"
#include "vela/lb/trace/generate.hpp"
#include "vela/lb/trace/trace.hpp"
#include "vela/lb/trace/vt.hpp"

namespace fs = std::filesystem;
using namespace vela::lb;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

// ---- instance_reader ----

void instances(const fs::path& dir) {
  std::vector<std::pair<std::string, Instance>> made;
  BramsOptions brams;
  brams.nx = 8;
  brams.ny = 8;
  brams.pes = 4;
  brams.block_side = 2;
  made.emplace_back("brams", generate_brams(brams));
  brams.storms = std::vector<Storm>{};
  brams.radiation = 2.0;
  made.emplace_back("brams-calm", generate_brams(brams));

  JacobiOptions jacobi;
  jacobi.nx = 4;
  jacobi.ny = 4;
  jacobi.pes = 2;
  jacobi.block_side = 2;
  made.emplace_back("jacobi", generate_jacobi(jacobi));
  jacobi.noise = 0.1;
  made.emplace_back("jacobi-noise", generate_jacobi(jacobi));

  GammaOptions gamma;
  gamma.objects = 16;
  gamma.pes = 4;
  made.emplace_back("gamma", generate_gamma(gamma));
  gamma.halo = false;
  gamma.placement = Placement::block_2d;
  made.emplace_back("gamma-no-halo", generate_gamma(gamma));

  ClusteredOptions clustered;
  clustered.objects = 16;
  clustered.pes = 4;
  clustered.overloaded = 1;
  made.emplace_back("clustered", generate_clustered(clustered));

  HeteroOptions hetero;
  hetero.nx = 4;
  hetero.ny = 4;
  hetero.pes = 4;
  hetero.background = {0.0, 0.5};
  made.emplace_back("hetero", generate_hetero(hetero));

  ParticlesOptions particles;
  particles.nx = 3;
  particles.ny = 3;
  particles.pes = 2;
  particles.particles = 40;
  particles.blobs = 1;
  made.emplace_back("particles", generate_particles(particles));
  particles.nz = 2;
  made.emplace_back("particles-3d", generate_particles(particles));

  // Pinned objects, and a PE whose speed and background are not the defaults.
  Instance pinned = made.front().second;
  for (std::size_t i = 0; i < pinned.objects.size(); i += 3) pinned.objects[i].migratable = false;
  pinned.pes.back().speed = 2.0;
  pinned.pes.back().background = 0.25;
  made.emplace_back("pinned", pinned);

  for (const auto& [name, instance] : made)
    write_instance(instance, (dir / name).string() + ".json");
}

// ---- trace_reader and vt_reader ----

void traces(const fs::path& trace_dir, const fs::path& vt_dir) {
  std::vector<std::pair<std::string, TraceOptions>> made;
  TraceOptions base;
  base.nx = 4;
  base.ny = 4;
  base.pes = 4;
  base.block_side = 2;
  base.steps = 3;
  made.emplace_back("storm", base);

  TraceOptions calm = base;
  calm.storms = std::vector<MovingStorm>{};
  calm.steps = 0;
  made.emplace_back("initial-only", calm);

  TraceOptions two = base;
  two.storms = std::vector<MovingStorm>{default_moving_storm(4, 4, 3),
                                        MovingStorm{Storm{0.0, 3.0, 1.5, 0.5}, 0.5, -0.5}};
  made.emplace_back("two-storms", two);

  TraceOptions radiation = base;
  radiation.steps = 4;
  radiation.radiation = RadiationSpikes{2, 1, 3.0};
  made.emplace_back("radiation", radiation);

  TraceOptions drift = base;
  drift.drift = Drift{0.5, 0.05};
  made.emplace_back("drift", drift);

  TraceOptions churn = base;
  churn.churn = Churn{0.5, 0.5, Appear::uniform};
  made.emplace_back("churn", churn);
  churn.churn = Churn{2.0, 1.0, Appear::storm};
  made.emplace_back("churn-storm", churn);

  // Every object deleted at the first step: steps with no alive object.
  TraceOptions emptied = base;
  emptied.steps = 2;
  emptied.churn = Churn{0.0, 16.0, Appear::uniform};
  made.emplace_back("emptied", emptied);

  for (const auto& [name, options] : made) {
    const Trace trace = generate_trace(options);
    write_trace_json(trace, (trace_dir / name).string() + ".json");
    write_trace_binary(trace, (trace_dir / name).string() + ".bin");
    if (trace.steps.empty() && name != "initial-only") continue;
    // The rank files of an export, each an input of its own.
    const fs::path exported = vt_dir / ("export-" + name);
    for (const std::string& file : export_vt(trace, exported.string())) {
      fs::rename(file, vt_dir / (name + "." + fs::path(file).filename().string()));
    }
    fs::remove_all(exported);
  }
  // One PE alone: a complete set in one file.
  TraceOptions one = base;
  one.pes = 1;
  one.churn = Churn{0.5, 0.5, Appear::uniform};
  const fs::path exported = vt_dir / "export-one-pe";
  for (const std::string& file : export_vt(generate_trace(one), exported.string())) {
    fs::rename(file, vt_dir / ("one-pe." + fs::path(file).filename().string()));
  }
  fs::remove_all(exported);
}

// ---- params ----

std::string number(double value) {
  if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  std::ostringstream out;
  out.precision(6);
  out << std::fixed << value;
  return out.str();
}

void params(const fs::path& dir) {
  std::vector<std::pair<std::string, std::vector<ParamSpec>>> owners;
  for (const auto& s : strategies()) owners.emplace_back("strategy-" + s.name, s.params);
  for (const auto& p : policies()) owners.emplace_back("policy-" + p.name, p.params);
  for (const auto& p : predictors()) owners.emplace_back("predictor-" + p.name, p.params);

  std::set<std::string> lines;  // one file per distinct setting
  for (const auto& [owner, specs] : owners) {
    std::string defaults;
    for (const ParamSpec& spec : specs) {
      const std::string key = spec.name + "=";
      if (spec.is_text()) {
        defaults += key + spec.default_text + "\n";
        for (const std::string& choice : spec.choices()) lines.insert(key + choice);
        lines.insert(key + "no-such-choice");
      } else {
        defaults += key + number(spec.default_value) + "\n";
        lines.insert(key + number(spec.min));
        lines.insert(key + number(spec.max));
        lines.insert(key + number(spec.min - 1.0));
        if (spec.integer) lines.insert(key + number(spec.min + 0.5));
      }
    }
    if (!defaults.empty()) write_text(dir / owner, defaults);
  }
  std::size_t k = 0;
  for (const std::string& line : lines) write_text(dir / ("setting-" + std::to_string(k++)), line);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_corpus DIR\n";
    return 2;
  }
  try {
    const fs::path root(argv[1]);
    for (const char* target :
         {"instance_reader", "trace_reader", "vt_reader", "params", "elf_image_reader"}) {
      fs::remove_all(root / target);
      fs::create_directories(root / target);
    }
    instances(root / "instance_reader");
    traces(root / "trace_reader", root / "vt_reader");
    params(root / "params");
  } catch (const std::exception& e) {
    std::cerr << "make_corpus: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
