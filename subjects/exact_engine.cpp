#include "subjects/exact_engine.h"

#include "oracle/superaccumulator.h"

namespace ordo {
namespace {

class SuperaccumulatorEngine final : public ExactEngine {
 public:
  const std::string& id() const override { return id_; }
  const std::string& description() const override { return description_; }
  ExactReadouts dot(const float* a, const float* b, std::int64_t K, std::optional<float> bias,
                    mpfr_ptr exact) override {
    acc_.clear();
    acc_.add_products(a, b, K);
    if (bias) acc_.add(*bias);
    acc_.to_mpfr(exact);
    return {acc_.to_float(), acc_.to_bf16(), acc_.to_double()};
  }

 private:
  std::string id_ = "host.superaccumulator";
  std::string description_ = "the fixed-point superaccumulator (oracle/superaccumulator.h)";
  oracle::Superaccumulator acc_;
};

}  // namespace

std::unique_ptr<ExactEngine> make_superaccumulator_engine() { return std::make_unique<SuperaccumulatorEngine>(); }

}  // namespace ordo
