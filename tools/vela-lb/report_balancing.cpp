// vela-lb report: the balancing steps of one collection from its --lb-dump instances.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "report_inputs.hpp"
#include "vela/lb/io/io.hpp"
#include "vela/lb/model/evaluate.hpp"
#include "vela/lb/model/metrics.hpp"
#include "vela/lb/strategies/registry.hpp"

namespace vela::tools::report {

namespace {

using nlohmann::json;

// The placement the objects of `before` have in `next` (the collection's next dump), found by
// id: what the runtime's balancing step did, since nothing else moves objects between dumps.
// Objects gone by then stay where they were.
lb::Assignment placement_in(const lb::Instance& before, const std::string& before_path,
                            const lb::Instance& next, const std::string& next_path) {
  if (next.pes.size() != before.pes.size()) {
    throw std::invalid_argument(next_path + ": " + std::to_string(next.pes.size()) +
                                " PEs, but the step before (" + before_path + ") has " +
                                std::to_string(before.pes.size()) + "; expected dumps of one run");
  }
  std::unordered_map<lb::ObjectId, lb::PeId> where;
  where.reserve(next.objects.size());
  for (const lb::Object& o : next.objects) where.emplace(o.id, o.pe);
  lb::Assignment after = lb::current_assignment(before);
  for (std::size_t i = 0; i < before.objects.size(); ++i) {
    const auto it = where.find(before.objects[i].id);
    if (it != where.end()) after.pe[i] = it->second;
  }
  return after;
}

// The x-y plane of the domain (the middle z layer of a 3-D one): each object's position, load
// and PE before and after.
json domain(const lb::Instance& instance, const lb::Assignment& before,
            const lb::Assignment* after) {
  json d = {{"dims", instance.dims}};
  std::vector<double> zs;
  for (const lb::Object& o : instance.objects) zs.push_back(o.coords[2]);
  double layer = 0.0;
  if (instance.dims == 3 && !zs.empty()) {
    std::sort(zs.begin(), zs.end());
    zs.erase(std::unique(zs.begin(), zs.end()), zs.end());
    layer = zs[zs.size() / 2];
    d["z"] = layer;
  }
  json x = json::array(), y = json::array(), load = json::array(), pe_before = json::array(),
       pe_after = json::array();
  for (std::size_t i = 0; i < instance.objects.size(); ++i) {
    const lb::Object& o = instance.objects[i];
    if (instance.dims == 3 && o.coords[2] != layer) continue;
    x.push_back(o.coords[0]);
    y.push_back(o.coords[1]);
    load.push_back(o.load);
    pe_before.push_back(before.pe[i]);
    if (after != nullptr) pe_after.push_back(after->pe[i]);
  }
  d["x"] = std::move(x);
  d["y"] = std::move(y);
  d["load"] = std::move(load);
  d["pe_before"] = std::move(pe_before);
  d["pe_after"] = after != nullptr ? std::move(pe_after) : json(nullptr);
  return d;
}

}  // namespace

json read_balancing_steps(const std::vector<std::pair<long, std::string>>& steps,
                          const SummaryOptions& options) {
  // One strategy object for the whole run, as the runtime keeps one (curve caches, state).
  std::unique_ptr<lb::Strategy> strategy;
  if (!options.strategy.empty()) strategy = lb::make_strategy(options.strategy, options.params);
  std::vector<lb::Instance> instances;
  for (const auto& [step, path] : steps) instances.push_back(lb::read_instance(path));

  json out = json::array();
  for (std::size_t k = 0; k < instances.size(); ++k) {
    const lb::Instance& instance = instances[k];
    const std::string& path = steps[k].second;
    if (instance.objects.empty()) {
      throw std::invalid_argument(path + ": no objects: expected a balancing step's instance");
    }
    const lb::Assignment before = lb::current_assignment(instance);
    std::unique_ptr<lb::Assignment> after;
    json after_from = nullptr;
    if (strategy) {
      after = std::make_unique<lb::Assignment>(
          lb::run_strategy(*strategy, options.strategy, instance).assignment);
      after_from = "strategy " + options.strategy;
    } else if (k + 1 < instances.size()) {
      after = std::make_unique<lb::Assignment>(
          placement_in(instance, path, instances[k + 1], steps[k + 1].second));
      after_from = "the placement in " + steps[k + 1].second;
    }
    const std::vector<double> loads_before = lb::pe_loads(instance, before);
    const lb::LoadStats stats_before = lb::load_stats(loads_before);
    json step = {{"path", path},
                 {"step", steps[k].first},
                 {"objects", instance.objects.size()},
                 {"pes", instance.pes.size()},
                 {"after_from", after_from},
                 {"pe_before", loads_before},
                 {"mean", stats_before.mean},
                 {"lambda_before", stats_before.imbalance},
                 {"pe_after", nullptr},
                 {"lambda_after", nullptr},
                 {"migrations", nullptr},
                 {"bytes_moved", nullptr},
                 {"domain", nullptr}};
    if (after) {
      const std::vector<double> loads_after = lb::pe_loads(instance, *after);
      const lb::MigrationStats moved = lb::migrations(instance, before, *after);
      step["pe_after"] = loads_after;
      step["lambda_after"] = lb::load_stats(loads_after).imbalance;
      step["migrations"] = moved.count;
      step["bytes_moved"] = moved.bytes;
    }
    if (instance.dims >= 2) step["domain"] = domain(instance, before, after.get());
    out.push_back(std::move(step));
  }
  return {{"steps", std::move(out)}};
}

}  // namespace vela::tools::report
