#include "tools/mpi_world.h"

#include <cstdlib>
#include <stdexcept>

#ifdef ORDO_HAVE_MPI
#include <mpi.h>
#endif

namespace ordo::tools {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

}  // namespace

bool built_with_mpi() {
#ifdef ORDO_HAVE_MPI
  return true;
#else
  return false;
#endif
}

MpiWorld::MpiWorld(int* argc, char*** argv) {
  const int launched = env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1));
  if (launched <= 1) return;
#ifdef ORDO_HAVE_MPI
  MPI_Init(argc, argv);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("MPI_LOCALRANKID", rank_));
#else
  (void)argc;
  (void)argv;
  throw std::runtime_error("started by an MPI launcher (" + std::to_string(launched) +
                           " ranks), but this ordo was built without MPI: install libopenmpi-dev (scripts/setup.sh does) "
                           "and rebuild, or run one process");
#endif
}

MpiWorld::~MpiWorld() {
#ifdef ORDO_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

std::vector<std::string> MpiWorld::gather(const std::string& text) const {
  if (!active()) return {text};
#ifdef ORDO_HAVE_MPI
  // Sizes first, then the bytes: each rank's state is one JSON text.
  const int mine = static_cast<int>(text.size());
  std::vector<int> sizes(static_cast<std::size_t>(size_));
  MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(static_cast<std::size_t>(size_), 0);
  int total = 0;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = total;
      total += sizes[static_cast<std::size_t>(r)];
    }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(text.data(), mine, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r)
      out.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                               static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)])));
  return out;
#else
  return {text};
#endif
}

void MpiWorld::barrier() const {
#ifdef ORDO_HAVE_MPI
  if (active()) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

}  // namespace ordo::tools
