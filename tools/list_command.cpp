#include <iostream>

#include "core/contract.h"
#include "kernels/backward_api.h"
#include "kernels/forward_api.h"
#include "tools/commands.h"

namespace ordo::tools {

void register_list(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("list", "List the contracts and the registered kernel variants (tiles)");
  static bool show_mutants = false;
  cmd->add_flag("--mutants", show_mutants, "also list the deliberately broken variants used by the self-test");
  cmd->callback([&exit_code] {
    std::cout << "Contracts\n";
    for (const Contract* c : all_contracts()) {
      for (const std::string& line : c->statement()) std::cout << "  " << line << "\n";
      std::cout << "\n";
    }
    auto print = [](const KernelVariant& v) {
      if (v.is_mutant && !show_mutants) return;
      std::cout << "  " << v.id << (v.is_mutant ? "  [MUTANT]" : "") << "\n    contract " << v.contract_id
                << ", tile " << v.tile_m << "x" << v.tile_n << "x" << v.tile_k << ", " << v.threads << " threads, "
                << v.stages << " stage(s), " << v.instruction << ", " << dtype_name(v.operand_dtype) << " operands, sm_"
                << v.min_sm << (v.max_sm ? "..sm_" + std::to_string(v.max_sm) : std::string("+"))
                << (v.bf16_output ? ", f32 or bf16 output" : "")
                << (v.k_multiple > 1 ? ", K % " + std::to_string(v.k_multiple) + " == 0" : std::string()) << "\n    "
                << v.description << "\n";
    };
    std::cout << "Forward kernel variants\n";
    for (const KernelVariant& v : kernels::forward_variants()) print(v);
    std::cout << "\nBackward kernel variants (dX)\n";
    for (const KernelVariant& v : kernels::backward_data_variants()) print(v);
    std::cout << "\nBackward kernel variants (dW, db)\n";
    for (const KernelVariant& v : kernels::backward_weight_variants()) print(v);
    exit_code = 0;
  });
}

}  // namespace ordo::tools
