#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "core/contract_file.h"
#include "kernels/backward_api.h"
#include "kernels/forward_api.h"
#include "properties/suite.h"
#include "subjects/registered_subjects.h"
#include "tools/commands.h"

namespace ordo::tools {
namespace {

struct ListOptions {
  bool mutants = false;
  bool contracts = false;
  bool variants = false;
  bool properties = false;
  bool json = false;
};

void print_contracts() {
  std::cout << "Contracts (ordo list --contracts --json prints them in the contract file format)\n";
  for (const Contract* c : all_contracts()) {
    for (const std::string& line : c->statement()) std::cout << "  " << line << "\n";
    std::cout << "\n";
  }
}

void print_variants(bool mutants) {
  // `rows`: what k_multiple constrains (the forward's K; for a TMA-fed dX, the rows of G and W).
  auto print = [mutants](const KernelVariant& v, const char* rows = "K") {
    if (v.is_mutant && !mutants) return;
    std::cout << "  " << v.id << (v.is_mutant ? "  [MUTANT]" : "") << "\n    contract " << v.contract_id << ", tile "
              << v.tile_m << "x" << v.tile_n << "x" << v.tile_k << ", " << v.threads << " threads, " << v.stages
              << " stage(s), " << v.instruction << ", " << dtype_name(v.operand_dtype) << " operands, " << v.sm.text()
              << (v.bf16_output ? ", f32 or bf16 output" : "")
              << (v.k_multiple > 1 ? ", " + std::string(rows) + " % " + std::to_string(v.k_multiple) + " == 0" : std::string()) << "\n    "
              << v.description << "\n";
  };
  std::cout << "Forward kernel variants\n";
  for (const KernelVariant& v : kernels::forward_variants()) print(v);
  std::cout << "\nBackward kernel variants (dX)\n";
  for (const KernelVariant& v : kernels::backward_data_variants()) print(v, "N and K");
  std::cout << "\nBackward kernel variants (dW, db)\n";
  for (const KernelVariant& v : kernels::backward_weight_variants()) print(v, "N and K");
}

void print_properties() {
  // The whole suite as it would run with a GPU: every property name once, with the subjects it applies to.
  properties::SuiteOptions so;
  so.gpu_present = true;
  so.contracts = properties::builtin_contracts();
  properties::Suite suite;
  properties::add_host_properties(suite, so);
  for (auto& f : registered_forward_subjects()) properties::add_forward_subject(suite, std::move(f), so);
  for (auto& b : registered_backward_subjects()) properties::add_backward_subject(suite, std::move(b), so);
  std::map<std::string, std::pair<std::string, std::map<std::string, int>>> by_name;
  for (const properties::PropertySpec& p : suite.properties) {
    auto& entry = by_name[p.name];
    entry.first = p.description;
    ++entry.second[p.backend];
  }
  std::cout << "Properties (subject kinds they run on: cuda = ordo's variants, plugin = --plugin libraries, "
               "emulator / oracle = host)\n";
  for (const auto& [name, entry] : by_name) {
    std::cout << "  " << name << "  [";
    bool first = true;
    for (const auto& [kind, count] : entry.second) {
      std::cout << (first ? "" : ", ") << kind << " x" << count;
      first = false;
    }
    std::cout << "]\n    " << entry.first << "\n";
  }
  std::cout << "  (a --plugin subject gets the forward.kernel_* / backward.* properties that its traits allow)\n";
}

}  // namespace

void register_list(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("list", "List the contracts, the registered kernel variants (tiles) and the properties");
  static ListOptions o;
  cmd->add_flag("--mutants", o.mutants, "also list the deliberately broken variants used by the self-test");
  cmd->add_flag("--contracts", o.contracts, "list the contracts only");
  cmd->add_flag("--variants", o.variants, "list the kernel variants only");
  cmd->add_flag("--properties", o.properties, "list the properties only");
  cmd->add_flag("--json", o.json, "with --contracts: every built-in contract as an ordo.contract/1 JSON document");
  cmd->callback([&exit_code] {
    exit_code = 0;
    if (o.json) {
      if (!o.contracts || o.variants || o.properties) {
        std::cerr << "ordo list: --json goes with --contracts only\n";
        exit_code = 2;
        return;
      }
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      for (const Contract* c : all_contracts()) all.push_back(contract_to_json(*c));
      std::cout << all.dump(2) << "\n";
      return;
    }
    const bool everything = !o.contracts && !o.variants && !o.properties;
    if (everything || o.contracts) print_contracts();
    if (everything || o.variants) print_variants(o.mutants);
    if (everything || o.properties) {
      if (everything) std::cout << "\n";
      print_properties();
    }
  });
}

}  // namespace ordo::tools
