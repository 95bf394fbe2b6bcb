#pragma once
// The MPI world an `ordo fuzz` runs in: under `mpirun -np N` each rank takes one shard of the case indices
// and rank 0 merges the ranks' campaign states into one report. Built without MPI (no libopenmpi-dev at
// configure time), a run started by mpirun is refused with a clear message instead of running N
// overlapping campaigns.
#include <string>
#include <vector>

namespace ordo::tools {

class MpiWorld {
 public:
  // Detects a launcher (OMPI_COMM_WORLD_SIZE, PMI_SIZE) and, when built with MPI, initialises it.
  // Throws std::runtime_error when started by mpirun but built without MPI.
  MpiWorld(int* argc, char*** argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  bool active() const { return size_ > 1; }
  // Rank 0 receives every rank's text (its own first); other ranks get an empty vector.
  std::vector<std::string> gather(const std::string& text) const;
  void barrier() const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialised_ = false;
};

// Whether this build can use MPI.
bool built_with_mpi();

}  // namespace ordo::tools
