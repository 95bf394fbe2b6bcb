#include "subjects/variant_traits.h"

#include <stdexcept>

namespace ordo {

SubjectTraits traits_of_variant(const KernelVariant& v) {
  const Contract* c = find_contract(v.contract_id);
  if (!c) throw std::invalid_argument("variant " + v.id + " claims unknown contract " + v.contract_id);
  SubjectTraits t;
  t.id = v.id;
  t.kind = "cuda";
  t.contract = *c;
  t.operand_dtype = v.operand_dtype;
  t.output_dtypes = v.bf16_output ? std::vector<DType>{DType::f32, DType::bf16} : std::vector<DType>{DType::f32};
  t.k_multiple = v.k_multiple;
  t.operand_alignment = v.operand_alignment;
  t.sm = v.sm;
  t.device_buffers = true;
  t.fail_closed = !v.is_mutant;
  t.accumulate = c->kind == ContractKind::backward_weight;
  t.is_mutant = v.is_mutant;
  t.description = v.description;
  return t;
}

}  // namespace ordo
