// vela-lb generate KIND: writes a seeded synthetic instance (src/lb/generate) as JSON.
#include <fmt/core.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "strategy_options.hpp"
#include "vela/lb/generate/generate.hpp"
#include "vela/lb/io/io.hpp"

namespace vela::tools {

namespace {

lb::Placement placement_named(const std::string& name) {
  return name == "block-2d" ? lb::Placement::block_2d : lb::Placement::block;
}

void add_placement_option(CLI::App& kind, std::string& placement) {
  kind.add_option("--placement", placement,
                  "Initial placement: block (contiguous id ranges) or block-2d (grid blocks)")
      ->check(CLI::IsMember({"block", "block-2d"}));
}

// Parses "CX,CY,RADIUS,FACTOR".
lb::Storm parse_storm(const std::string& text) {
  const std::vector<double> values = parse_number_list("--storm", text);
  if (values.size() != 4) {
    throw std::invalid_argument("--storm: expected CX,CY,RADIUS,FACTOR (four numbers), got '" +
                                text + "'");
  }
  return {values[0], values[1], values[2], values[3]};
}

// An option given to a kind it does not belong to: CLI11 keeps it as an extra (allow_extras),
// and this names the kinds that do take it.
void reject_extras(CLI::App& generate, CLI::App& kind) {
  const std::vector<std::string> extras = kind.remaining();
  if (extras.empty()) return;
  std::string first = extras.front();
  for (const std::string& arg : extras) {
    if (arg.starts_with("-")) {
      first = arg;
      break;
    }
  }
  const std::string name = first.substr(0, first.find('='));
  if (!name.starts_with("-")) {
    throw std::invalid_argument("generate " + kind.get_name() + ": unexpected argument '" + first +
                                "' (see 'vela-lb generate " + kind.get_name() + " --help')");
  }
  std::string owners;
  for (const CLI::App* other : generate.get_subcommands({})) {
    if (other != &kind && other->get_option_no_throw(name) != nullptr) {
      owners += (owners.empty() ? "" : ", ") + other->get_name();
    }
  }
  throw std::invalid_argument(
      "generate " + kind.get_name() + ": option " + name + " does not apply to " + kind.get_name() +
      (owners.empty() ? std::string{} : " (it is an option of " + owners + ")") +
      "; see 'vela-lb generate " + kind.get_name() + " --help'");
}

void write(const lb::Instance& instance, const std::string& kind, std::uint64_t seed,
           const std::string& path) {
  lb::write_instance(instance, path);
  const std::string hyperedges =
      instance.hyperedges.empty() ? "" : fmt::format(", {} hyperedges", instance.hyperedges.size());
  fmt::print("wrote {}: {} instance, {} objects on {} PEs, {} edges{}, seed {}\n", path, kind,
             instance.objects.size(), instance.pes.size(), instance.edges.size(), hyperedges, seed);
}

// A kind's sub-command with the options every kind has: --output, --seed, --pes. Each kind keeps
// its option values in a shared State that its callback owns, so they live as long as the app.
CLI::App* add_kind(CLI::App& generate, const std::string& name, const std::string& summary,
                   std::string& output, std::uint64_t& seed, lb::PeId& pes) {
  CLI::App* kind = generate.add_subcommand(name, summary);
  kind->allow_extras();
  kind->option_defaults()->always_capture_default();
  kind->add_option("-o,--output", output, "Instance file to write (JSON)")->required();
  kind->add_option("--seed", seed, "Random seed; the same options and seed give the same file");
  kind->add_option("--pes", pes, "Number of PEs");
  return kind;
}

void add_halo_options(CLI::App& kind, bool& halo, std::uint64_t& halo_bytes,
                      std::uint64_t& object_bytes) {
  kind.add_flag("--no-halo{false}", halo, "Leave out the grid halo edges");
  kind.add_option("--halo-bytes", halo_bytes, "Bytes per halo message");
  kind.add_option("--object-bytes", object_bytes, "Bytes moved when an object migrates");
}

void add_brams(CLI::App& generate) {
  struct State {
    std::string output;
    lb::BramsOptions options;
    std::vector<std::string> storms;
    bool no_storm = false;
    std::uint64_t halo_bytes = 0;
    std::uint64_t object_bytes = 0;
  };
  auto s = std::make_shared<State>();
  lb::BramsOptions& o = s->options;
  CLI::App* kind = add_kind(generate, "brams",
                            "BRAMS-like weather grid: column blocks, storms raise the load, "
                            "2-D block placement",
                            s->output, o.seed, o.pes);
  kind->add_option("--nx", o.nx, "Objects (column blocks) along x");
  kind->add_option("--ny", o.ny, "Objects (column blocks) along y");
  kind->add_option("--base-load", o.base_load, "Seconds per step of a block outside storms");
  kind->add_option("--noise", o.noise, "Relative load noise: each load times 1 + U[-noise, noise)");
  CLI::Option* storm =
      kind->add_option("--storm", s->storms,
                       "Storm CX,CY,RADIUS,FACTOR in grid units (repeatable); load x FACTOR at the "
                       "centre, raised-cosine falloff to x1 at RADIUS [default: 0.3nx,0.4ny,"
                       "0.15min(nx,ny),4]")
          ->allow_extra_args(false)
          ->default_str("");
  kind->add_flag("--no-storm", s->no_storm, "No storm: base load everywhere")->excludes(storm);
  kind->add_option("--radiation", o.radiation, "Multiplies every load (radiation step); 1 = off");
  kind->add_option("--block-side", o.block_side, "Columns along each side of a block");
  kind->add_option("--levels", o.levels, "Vertical levels of a column");
  kind->add_option("--fields", o.fields, "Prognostic fields (doubles) per grid point");
  CLI::Option* halo_bytes =
      kind->add_option("--halo-bytes", s->halo_bytes,
                       "Bytes per halo message [default: block-side x levels x fields x 8]")
          ->default_str("");
  CLI::Option* object_bytes =
      kind->add_option("--object-bytes", s->object_bytes,
                       "Bytes of a block's state [default: block-side^2 x levels x fields x 8]")
          ->default_str("");
  kind->callback([s, kind, &generate, storm, halo_bytes, object_bytes] {
    reject_extras(generate, *kind);
    lb::BramsOptions options = s->options;
    if (s->no_storm) options.storms = std::vector<lb::Storm>{};
    if (storm->count() > 0) {
      options.storms = std::vector<lb::Storm>{};
      for (const std::string& text : s->storms) options.storms->push_back(parse_storm(text));
    }
    if (halo_bytes->count() > 0) options.halo_bytes = s->halo_bytes;
    if (object_bytes->count() > 0) options.object_bytes = s->object_bytes;
    write(lb::generate_brams(options), "brams", options.seed, s->output);
  });
}

void add_jacobi(CLI::App& generate) {
  struct State {
    std::string output;
    lb::JacobiOptions options;
    std::uint64_t halo_bytes = 0;
    std::uint64_t object_bytes = 0;
  };
  auto s = std::make_shared<State>();
  lb::JacobiOptions& o = s->options;
  CLI::App* kind =
      add_kind(generate, "jacobi", "Uniform Jacobi 2-D grid, equal loads, 2-D block placement",
               s->output, o.seed, o.pes);
  kind->add_option("--nx", o.nx, "Objects along x");
  kind->add_option("--ny", o.ny, "Objects along y");
  kind->add_option("--load", o.load, "Seconds per step of every object");
  kind->add_option("--noise", o.noise, "Relative load noise (0: equal loads)");
  kind->add_option("--block-side", o.block_side, "Cells along each side of an object's block");
  CLI::Option* halo_bytes = kind->add_option("--halo-bytes", s->halo_bytes,
                                             "Bytes per halo message [default: block-side x 8]")
                                ->default_str("");
  CLI::Option* object_bytes =
      kind->add_option("--object-bytes", s->object_bytes,
                       "Bytes of an object, two iterates [default: 2 x block-side^2 x 8]")
          ->default_str("");
  kind->callback([s, kind, &generate, halo_bytes, object_bytes] {
    reject_extras(generate, *kind);
    lb::JacobiOptions options = s->options;
    if (halo_bytes->count() > 0) options.halo_bytes = s->halo_bytes;
    if (object_bytes->count() > 0) options.object_bytes = s->object_bytes;
    write(lb::generate_jacobi(options), "jacobi", options.seed, s->output);
  });
}

void add_gamma(CLI::App& generate) {
  struct State {
    std::string output;
    lb::GammaOptions options;
    std::string placement = "block";
  };
  auto s = std::make_shared<State>();
  lb::GammaOptions& o = s->options;
  CLI::App* kind =
      add_kind(generate, "gamma", "Gamma-distributed loads on a near-square grid, block placement",
               s->output, o.seed, o.pes);
  kind->add_option("--objects", o.objects, "Number of objects");
  kind->add_option("--shape", o.shape, "Gamma shape k (mean k x scale)");
  kind->add_option("--scale", o.scale, "Gamma scale theta (variance k x theta^2)");
  add_placement_option(*kind, s->placement);
  add_halo_options(*kind, o.halo, o.halo_bytes, o.object_bytes);
  kind->callback([s, kind, &generate] {
    reject_extras(generate, *kind);
    lb::GammaOptions options = s->options;
    options.placement = placement_named(s->placement);
    write(lb::generate_gamma(options), "gamma", options.seed, s->output);
  });
}

void add_clustered(CLI::App& generate) {
  struct State {
    std::string output;
    lb::ClusteredOptions options;
    std::string placement = "block";
  };
  auto s = std::make_shared<State>();
  lb::ClusteredOptions& o = s->options;
  CLI::App* kind =
      add_kind(generate, "clustered", "Overload on the first PEs, far from the spare capacity",
               s->output, o.seed, o.pes);
  kind->add_option("--objects", o.objects, "Number of objects");
  kind->add_option("--overloaded", o.overloaded, "How many PEs (the first ones) are overloaded");
  kind->add_option("--factor", o.factor, "Load multiplier of objects on overloaded PEs");
  kind->add_option("--min-load", o.min_load, "Base loads are uniform in [min-load, max-load)");
  kind->add_option("--max-load", o.max_load, "Upper end of the base loads");
  add_placement_option(*kind, s->placement);
  add_halo_options(*kind, o.halo, o.halo_bytes, o.object_bytes);
  kind->callback([s, kind, &generate] {
    reject_extras(generate, *kind);
    lb::ClusteredOptions options = s->options;
    options.placement = placement_named(s->placement);
    write(lb::generate_clustered(options), "clustered", options.seed, s->output);
  });
}

void add_hetero(CLI::App& generate) {
  struct State {
    std::string output;
    lb::HeteroOptions options;
  };
  auto s = std::make_shared<State>();
  lb::HeteroOptions& o = s->options;
  CLI::App* kind =
      add_kind(generate, "hetero", "Grid on PEs of unequal speed in clusters (slow second cluster)",
               s->output, o.seed, o.pes);
  kind->add_option("--nx", o.nx, "Objects along x");
  kind->add_option("--ny", o.ny, "Objects along y");
  kind->add_option("--clusters", o.clusters, "PE clusters (contiguous PE id ranges)");
  CLI::Option* slow =
      kind->add_option("--slow-speed", o.slow_speed, "Speed of PEs outside cluster 0");
  kind->add_option("--speeds", o.speeds,
                   "Speeds: one value, one per cluster or one per PE (comma-separated)")
      ->delimiter(',')
      ->default_str("")
      ->excludes(slow);
  kind->add_option("--background", o.background,
                   "Background seconds per step: one value, one per cluster or one per PE")
      ->delimiter(',')
      ->default_str("");
  kind->add_option("--base-load", o.base_load, "Seconds per step of an object");
  kind->add_option("--noise", o.noise, "Relative load noise: each load times 1 + U[-noise, noise)");
  kind->add_option("--halo-bytes", o.halo_bytes, "Bytes per halo message");
  kind->add_option("--object-bytes", o.object_bytes, "Bytes moved when an object migrates");
  kind->callback([s, kind, &generate] {
    reject_extras(generate, *kind);
    write(lb::generate_hetero(s->options), "hetero", s->options.seed, s->output);
  });
}

void add_particles(CLI::App& generate) {
  struct State {
    std::string output;
    lb::ParticlesOptions options;
  };
  auto s = std::make_shared<State>();
  lb::ParticlesOptions& o = s->options;
  CLI::App* kind = add_kind(generate, "particles",
                            "MD-like box: cells are objects, particles near cell borders are "
                            "hyperedges (version-2 file), blobs make the load uneven",
                            s->output, o.seed, o.pes);
  kind->add_option("--nx", o.nx, "Cells along x");
  kind->add_option("--ny", o.ny, "Cells along y");
  kind->add_option("--nz", o.nz, "Cells along z (1: a 2-D box)");
  kind->add_option("--particles", o.particles, "Number of particles");
  kind->add_option("--blobs", o.blobs, "Gaussian clusters of particles (0: uniform)");
  kind->add_option("--blob-fraction", o.blob_fraction, "Share of the particles in blobs, 0 to 1");
  kind->add_option("--blob-radius", o.blob_radius, "Standard deviation of a blob, in cells");
  kind->add_option("--cutoff", o.cutoff,
                   "Interaction radius in cells (0, 2]: a particle is read by the cells within it");
  kind->add_option("--pair-cost", o.pair_cost, "Seconds per interacting particle pair");
  kind->add_option("--cell-cost", o.cell_cost, "Seconds per step of every cell");
  kind->add_option("--particle-bytes", o.particle_bytes, "Bytes of one particle's state");
  kind->callback([s, kind, &generate] {
    reject_extras(generate, *kind);
    write(lb::generate_particles(s->options), "particles", s->options.seed, s->output);
  });
}

}  // namespace

void add_generate_command(CLI::App& app) {
  CLI::App* generate = app.add_subcommand(
      "generate", "Write a seeded synthetic instance: generate KIND [options] -o FILE");
  generate->require_subcommand(1, 1);
  add_brams(*generate);
  add_jacobi(*generate);
  add_gamma(*generate);
  add_clustered(*generate);
  add_hetero(*generate);
  add_particles(*generate);
}

}  // namespace vela::tools
