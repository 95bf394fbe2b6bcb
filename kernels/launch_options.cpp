#include "kernels/launch_options.h"

#include <string>

namespace ordo::kernels {
namespace {

// One value of an enum option: its text on the command line.
template <class E>
struct Named {
  const char* text;
  E value;
};

template <class E, std::size_t n>
std::string set_enum(E* out, std::string_view flag, std::string_view value, const Named<E> (&names)[n]) {
  std::string choices;
  for (const Named<E>& v : names) {
    if (value == v.text) {
      *out = v.value;
      return "";
    }
    choices += (choices.empty() ? "" : "|") + std::string(v.text);
  }
  return std::string(flag) + " takes " + choices + ", not \"" + std::string(value) + "\"";
}

template <class E, std::size_t n>
const char* text_of(E value, const Named<E> (&names)[n]) {
  for (const Named<E>& v : names)
    if (v.value == value) return v.text;
  return "?";
}

constexpr Named<WgmmaKernels> kKernels[] = {{"by-shape", WgmmaKernels::by_shape}, {"general", WgmmaKernels::general}};
constexpr Named<WgmmaStores> kStores[] = {{"staged", WgmmaStores::staged}, {"direct", WgmmaStores::direct}};
constexpr Named<WgmmaSmallMWidth> kWidth[] = {{"by-shape", WgmmaSmallMWidth::by_shape},
                                              {"64", WgmmaSmallMWidth::quarters}};
constexpr Named<WgmmaSmallMConsumers> kConsumers[] = {{"by-shape", WgmmaSmallMConsumers::by_shape},
                                                      {"1", WgmmaSmallMConsumers::one}};
constexpr Named<WgmmaCacheHints> kHints[] = {
    {"by-size", WgmmaCacheHints::by_size}, {"0", WgmmaCacheHints::off}, {"1", WgmmaCacheHints::on}};
constexpr Named<WgmmaDwKernel> kDw[] = {{"by-accumulate", WgmmaDwKernel::by_accumulate},
                                        {"serial", WgmmaDwKernel::serial}};
constexpr Named<WgmmaGather> kGather[] = {
    {"no-wait", WgmmaGather::no_wait}, {"serial", WgmmaGather::serial}, {"wait", WgmmaGather::wait}};
constexpr Named<int> kCluster[] = {{"1", 1}, {"2", 2}};
constexpr Named<int> kPending[] = {{"rule", 0}, {"1", 1}, {"2", 2}};
constexpr Named<bool> kSplit[] = {{"1", true}, {"0", false}};

}  // namespace

const std::vector<LaunchOptionFlag>& launch_option_flags() {
  static const std::vector<LaunchOptionFlag> flags = {
      {"--trace-launch", "", "the wgmma variants print each call's schedule on stderr: kernel, blocks, units, ring, stores"},
      {"--wgmma-kernel", "by-shape|general", "general: every shape on the general wgmma kernel (default by-shape)"},
      {"--wgmma-cluster", "1|2", "2: the forward's general wgmma kernel in clusters of two blocks sharing W by TMA multicast"},
      {"--wgmma-pending", "rule|1|2", "the wgmma groups each consumer leaves in flight (default: the rule)"},
      {"--wgmma-stores", "staged|direct", "direct: outputs stored thread by thread instead of through shared memory and TMA"},
      {"--wgmma-small-m-width", "by-shape|64", "64: the forward's M <= 64 quarters instead of 48-column units"},
      {"--wgmma-small-m-consumers", "by-shape|1", "1: the M <= 64 kernels with one consumer warpgroup"},
      {"--wgmma-cache-hints", "by-size|0|1", "the forward's small-M L2 hints off or on whatever the size of W"},
      {"--wgmma-dw", "by-accumulate|serial", "serial: dW always on the kernel that can load start values"},
      {"--wgmma-gather", "no-wait|serial|wait", "the gathered dW's producers: the earlier waiting ones, or the current ones on the start-value kernel"},
      {"--fp32-tile", "NAME", "the FP32 by-shape variants on this one tile (`ordo list --variants` names the rule's tiles)"},
      {"--fp32-split", "1|0", "0: no second launch for the rows past a grid's whole waves"},
  };
  return flags;
}

const LaunchOptionFlag* find_launch_option_flag(std::string_view name) {
  for (const LaunchOptionFlag& f : launch_option_flags())
    if (name == f.name) return &f;
  return nullptr;
}

std::string set_launch_option(LaunchOptions* o, std::string_view flag, std::string_view value) {
  if (flag == "--trace-launch") {
    o->trace_launch = true;
    return "";
  }
  if (flag == "--wgmma-kernel") return set_enum(&o->wgmma.kernels, flag, value, kKernels);
  if (flag == "--wgmma-cluster") return set_enum(&o->wgmma.cluster, flag, value, kCluster);
  if (flag == "--wgmma-pending") return set_enum(&o->wgmma.pending_groups, flag, value, kPending);
  if (flag == "--wgmma-stores") return set_enum(&o->wgmma.stores, flag, value, kStores);
  if (flag == "--wgmma-small-m-width") return set_enum(&o->wgmma.small_m_width, flag, value, kWidth);
  if (flag == "--wgmma-small-m-consumers") return set_enum(&o->wgmma.small_m_consumers, flag, value, kConsumers);
  if (flag == "--wgmma-cache-hints") return set_enum(&o->wgmma.cache_hints, flag, value, kHints);
  if (flag == "--wgmma-dw") return set_enum(&o->wgmma.dw, flag, value, kDw);
  if (flag == "--wgmma-gather") return set_enum(&o->wgmma.gather, flag, value, kGather);
  if (flag == "--fp32-tile") {
    if (value.empty()) return "--fp32-tile needs a tile name";
    o->fp32.tile = std::string(value);
    return "";
  }
  if (flag == "--fp32-split") return set_enum(&o->fp32.split, flag, value, kSplit);
  return "no launch option " + std::string(flag);
}

std::string launch_options_text(const LaunchOptions& o) {
  const LaunchOptions d;
  std::string s;
  auto add = [&s](const char* flag, const std::string& value) { s += std::string(" ") + flag + (value.empty() ? "" : " " + value); };
  if (o.trace_launch) add("--trace-launch", "");
  if (o.wgmma.kernels != d.wgmma.kernels) add("--wgmma-kernel", text_of(o.wgmma.kernels, kKernels));
  if (o.wgmma.cluster != d.wgmma.cluster) add("--wgmma-cluster", text_of(o.wgmma.cluster, kCluster));
  if (o.wgmma.pending_groups != d.wgmma.pending_groups) add("--wgmma-pending", text_of(o.wgmma.pending_groups, kPending));
  if (o.wgmma.stores != d.wgmma.stores) add("--wgmma-stores", text_of(o.wgmma.stores, kStores));
  if (o.wgmma.small_m_width != d.wgmma.small_m_width) add("--wgmma-small-m-width", text_of(o.wgmma.small_m_width, kWidth));
  if (o.wgmma.small_m_consumers != d.wgmma.small_m_consumers)
    add("--wgmma-small-m-consumers", text_of(o.wgmma.small_m_consumers, kConsumers));
  if (o.wgmma.cache_hints != d.wgmma.cache_hints) add("--wgmma-cache-hints", text_of(o.wgmma.cache_hints, kHints));
  if (o.wgmma.dw != d.wgmma.dw) add("--wgmma-dw", text_of(o.wgmma.dw, kDw));
  if (o.wgmma.gather != d.wgmma.gather) add("--wgmma-gather", text_of(o.wgmma.gather, kGather));
  if (o.fp32.tile != d.fp32.tile) add("--fp32-tile", "\"" + o.fp32.tile + "\"");
  if (o.fp32.split != d.fp32.split) add("--fp32-split", text_of(o.fp32.split, kSplit));
  return s;
}

}  // namespace ordo::kernels
