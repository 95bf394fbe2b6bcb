#pragma once
#include <mpfr.h>

namespace ordo::oracle {

// RAII owner of one mpfr_t (MPFR's C API, used directly so that every operation's ternary value,
// which says whether it rounded, can be asserted).
class MpfrValue {
 public:
  explicit MpfrValue(mpfr_prec_t precision) { mpfr_init2(v_, precision); mpfr_set_zero(v_, 1); }
  ~MpfrValue() { mpfr_clear(v_); }
  MpfrValue(const MpfrValue&) = delete;
  MpfrValue& operator=(const MpfrValue&) = delete;
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }

 private:
  mpfr_t v_;
};

}  // namespace ordo::oracle
