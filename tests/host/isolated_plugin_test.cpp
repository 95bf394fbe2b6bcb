// Plugins run in worker processes (subjects/isolated_plugin.h), driven from here through the built `ordo`
// (its hidden worker mode): a library that exits, aborts, crashes or hangs costs one call a subject_fault
// or subject_timeout and the next call runs in a fresh process; the fail-closed scenarios all still run;
// the traits, the outputs and the errors are those of the in-process loader; no worker is left behind.
#include "subjects/isolated_plugin.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/contract_file.h"
#include "properties/forward_case.h"

namespace ordo {
namespace {

std::string plugin(const std::string& suffix) {
  return std::string(ORDO_TEST_PLUGIN_DIR) + "/libordo_test_plugin_" + suffix + ".so";
}

IsolationOptions options(double timeout_seconds = 60) {
  IsolationOptions o;
  o.executable = ORDO_BINARY;
  o.call_timeout_seconds = timeout_seconds;
  return o;
}

ForwardProblem problem(std::int64_t M, std::int64_t N, std::int64_t K, std::uint64_t seed) {
  properties::ForwardCase c;
  c.M = M;
  c.N = N;
  c.K = K;
  c.seed = seed;
  c.has_bias = seed % 2 == 1;
  return c.materialize();
}

// The children of this process (every thread's): a worker left running or unreaped shows here.
std::vector<std::string> children() {
  std::vector<std::string> out;
  const std::string tasks = "/proc/" + std::to_string(getpid()) + "/task";
  if (DIR* d = opendir(tasks.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream in(tasks + "/" + e->d_name + "/children");
      for (std::string pid; in >> pid;) out.push_back(pid);
    }
    closedir(d);
  }
  return out;
}

// Calls forward until call number `fatal` (counted per process, as the test plugins count): every call
// before it succeeds, that one gets `code` with `message` in its text, and the next one succeeds again.
void expect_fault_on_call(ForwardSubject& s, int fatal, StatusCode code, const std::string& message) {
  const ForwardProblem p = problem(3, 5, 7, 1);
  for (int call = 1; call < fatal; ++call) ASSERT_TRUE(s.forward(p).status.ok()) << "call " << call;
  const BackendResult r = s.forward(p);
  EXPECT_EQ(r.status.code, code) << r.status.to_string();
  EXPECT_NE(r.status.message.find(message), std::string::npos) << r.status.message;
  EXPECT_TRUE(r.y.empty());
  const BackendResult next = s.forward(p);
  EXPECT_TRUE(next.status.ok()) << "a fresh process runs the next call: " << next.status.to_string();
  EXPECT_EQ(next.y.size(), 15u);
}

TEST(IsolatedPlugins, TheTraitsAreTheInProcessLoadersOwn) {
  const PluginSubjects here = load_plugin_subjects(plugin("correct"));
  const PluginSubjects isolated = load_isolated_plugin_subjects(plugin("correct"), options());
  ASSERT_EQ(isolated.forward.size(), 1u);
  ASSERT_EQ(isolated.backward.size(), 2u);
  EXPECT_EQ(isolated.library->name, "host-gemm");
  EXPECT_TRUE(isolated.library->host_buffers);
  EXPECT_EQ(isolated.library->handle, nullptr) << "ordo itself never opens an isolated library";
  auto same = [](const SubjectTraits& a, const SubjectTraits& b) {
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(contract_to_json(a.contract), contract_to_json(b.contract));
    EXPECT_EQ(a.contract.source, b.contract.source);
    EXPECT_EQ(a.operand_dtype, b.operand_dtype);
    EXPECT_EQ(a.output_dtypes, b.output_dtypes);
    EXPECT_EQ(a.k_multiple, b.k_multiple);
    EXPECT_EQ(a.device_buffers, b.device_buffers);
    EXPECT_EQ(a.fail_closed, b.fail_closed);
    EXPECT_EQ(a.accumulate, b.accumulate);
    EXPECT_EQ(a.description, b.description);
  };
  same(isolated.forward[0]->traits(), here.forward[0]->traits());
  for (std::size_t i = 0; i < 2; ++i) same(isolated.backward[i]->traits(), here.backward[i]->traits());
}

TEST(IsolatedPlugins, OutputsAndRefusalsAreTheInProcessSubjectsOwn) {
  const PluginSubjects here = load_plugin_subjects(plugin("correct"));
  const PluginSubjects isolated = load_isolated_plugin_subjects(plugin("correct"), options());
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const ForwardProblem p = problem(1 + seed, 3 * seed, 17 * seed, seed);
    const BackendResult a = here.forward[0]->forward(p), b = isolated.forward[0]->forward(p);
    ASSERT_TRUE(b.status.ok()) << b.status.to_string();
    EXPECT_EQ(0, std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(float)));
    EXPECT_EQ(a.y.size(), b.y.size());
  }
  // A refusal comes back with the library's code and message: two tokens with one key.
  BackwardWeightProblem dup;
  dup.T = 2;
  dup.N = 1;
  dup.K = 1;
  dup.x = {1.0f, 2.0f};
  dup.g = {1.0f, 1.0f};
  dup.keys = LogicalKeys{2, {0, 7, 0, 7}};
  const BackwardWeightRun refused_here = here.backward[1]->weight({dup});
  const BackwardWeightRun refused = isolated.backward[1]->weight({dup});
  EXPECT_EQ(refused.status.code, StatusCode::duplicate_key);
  EXPECT_EQ(refused.status.message, refused_here.status.message);
  EXPECT_TRUE(refused.result.dw.empty());
  // The fail-closed scenarios of every operation, the backward ones too, run in the worker as in process.
  const std::vector<std::pair<std::vector<FailClosedOutcome>, std::vector<FailClosedOutcome>>> runs = {
      {here.forward[0]->fail_closed_scenarios(), isolated.forward[0]->fail_closed_scenarios()},
      {here.backward[0]->fail_closed_scenarios(), isolated.backward[0]->fail_closed_scenarios()},
      {here.backward[1]->fail_closed_scenarios(), isolated.backward[1]->fail_closed_scenarios()}};
  for (const auto& [a, b] : runs) {
    ASSERT_EQ(a.size(), b.size());
    EXPECT_GT(a.size(), 10u);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].scenario, b[i].scenario);
      EXPECT_EQ(a[i].got, b[i].got);  // (the messages name addresses, which differ between processes)
      EXPECT_TRUE(b[i].passed()) << b[i].scenario;
    }
  }
}

TEST(IsolatedPlugins, AnExitIsASubjectFaultOfThatCallOnly) {
  PluginSubjects s = load_isolated_plugin_subjects(plugin("exit"), options());
  expect_fault_on_call(*s.forward[0], 20, StatusCode::subject_fault,
                       "the subject's process exited with status 0 during a forward call");
}

TEST(IsolatedPlugins, AnAbortIsASubjectFaultOfThatCallOnly) {
  PluginSubjects s = load_isolated_plugin_subjects(plugin("abort"), options());
  expect_fault_on_call(*s.forward[0], 20, StatusCode::subject_fault,
                       "the subject's process aborted (signal 6, SIGABRT) during a forward call");
}

TEST(IsolatedPlugins, ASegfaultIsASubjectFaultOfThatCallOnly) {
  PluginSubjects s = load_isolated_plugin_subjects(plugin("segfault"), options());
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer reports the bad write and exits the worker itself.
  expect_fault_on_call(*s.forward[0], 20, StatusCode::subject_fault, "the subject's process exited with status");
#else
  expect_fault_on_call(*s.forward[0], 20, StatusCode::subject_fault,
                       "the subject's process was killed by signal 11 (SIGSEGV) during a forward call");
#endif
}

TEST(IsolatedPlugins, AHangIsASubjectTimeoutAfterTheTimeLimit) {
  PluginSubjects s = load_isolated_plugin_subjects(plugin("hang"), options(0.5));
  const auto start = std::chrono::steady_clock::now();
  expect_fault_on_call(*s.forward[0], 20, StatusCode::subject_timeout,
                       "the subject did not finish a forward call within 0.5 s; its process was killed");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(IsolatedPlugins, AProcessThatDiesInAScenarioFailsThatScenarioAndTheRestStillRun) {
  // As many as the correct plugin's (the same traits); counted in this process, where the exiting
  // plugin itself must never run.
  const std::size_t expected = load_plugin_subjects(plugin("correct")).forward[0]->fail_closed_scenarios().size();
  PluginSubjects s = load_isolated_plugin_subjects(plugin("exit"), options());
  // Fifteen calls first: the process's 20th call is then the fifth scenario.
  const ForwardProblem p = problem(2, 2, 2, 2);
  for (int call = 0; call < 15; ++call) ASSERT_TRUE(s.forward[0]->forward(p).status.ok());
  const std::vector<FailClosedOutcome> outcomes = s.forward[0]->fail_closed_scenarios();
  ASSERT_EQ(outcomes.size(), expected);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (i != 4) {
      EXPECT_TRUE(outcomes[i].passed()) << i << ": " << outcomes[i].scenario << ": " << outcomes[i].message;
      continue;
    }
    EXPECT_FALSE(outcomes[i].passed());
    EXPECT_EQ(outcomes[i].got, StatusCode::subject_fault);
    EXPECT_EQ(outcomes[i].message, "the subject's process exited with status 0 during a fail-closed scenario");
  }
}

TEST(IsolatedPlugins, CallsFromSeveralThreadsRunInSeveralProcesses) {
  const PluginSubjects here = load_plugin_subjects(plugin("correct"));
  const PluginSubjects isolated = load_isolated_plugin_subjects(plugin("correct"), options());
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (std::uint64_t i = 0; i < 25; ++i) {
        const ForwardProblem p = problem(1 + t, 2 + i % 7, 3 + i, i * 4 + static_cast<std::uint64_t>(t));
        const BackendResult a = here.forward[0]->forward(p), b = isolated.forward[0]->forward(p);
        if (!b.status.ok() || a.y.size() != b.y.size() ||
            std::memcmp(a.y.data(), b.y.data(), a.y.size() * sizeof(float)) != 0)
          ++wrong[static_cast<std::size_t>(t)];
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
  EXPECT_GE(children().size(), 1u);
}

TEST(IsolatedPlugins, NoWorkerOutlivesItsSubjects) {
  {
    PluginSubjects s = load_isolated_plugin_subjects(plugin("hang"), options(0.3));
    const ForwardProblem p = problem(2, 2, 2, 3);
    for (int call = 0; call < 25; ++call) s.forward[0]->forward(p);  // one killed on its 20th call
    EXPECT_FALSE(children().empty());
  }
  EXPECT_EQ(children(), std::vector<std::string>{}) << "a worker is still running, or a zombie";
}

TEST(IsolatedPlugins, AMalformedDescriptionGetsTheInProcessLoadersError) {
  for (const char* suffix : {"bad_abi", "bad_contract_json", "no_describe", "no_such_library"}) {
    std::string here, isolated;
    try {
      load_plugin_subjects(plugin(suffix));
    } catch (const PluginError& e) {
      here = e.what();
    }
    try {
      load_isolated_plugin_subjects(plugin(suffix), options());
    } catch (const PluginError& e) {
      isolated = e.what();
    }
    EXPECT_FALSE(here.empty()) << suffix;
    EXPECT_EQ(isolated, here) << suffix;
  }
}

TEST(IsolatedPlugins, AnExecutableThatCannotRunIsAnErrorNamingIt) {
  IsolationOptions o = options();
  o.executable = "/nonexistent/ordo";
  try {
    load_isolated_plugin_subjects(plugin("correct"), o);
    ADD_FAILURE() << "loaded without a worker";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run /nonexistent/ordo: No such file or directory"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ordo
