// backends/hip/ccl.hpp: the collective library of the hip backend: RCCL on AMD, NCCL on
// HIP's NVIDIA platform (RCCL implements NCCL's API, so the same calls serve both), or
// none (C3_HIP_HAVE_RCCL=0: collectives on the cu transport report "unsupported").
#pragma once

#include "backends/hip/common.hpp"

#if C3_HIP_HAVE_RCCL
#if defined(__HIP_PLATFORM_NVIDIA__)
#include <nccl.h>
#else
#include <rccl/rccl.h>
#endif
#endif

namespace c3::hip {

#if C3_HIP_HAVE_RCCL
using Comm = ncclComm_t;
/// "rccl" on AMD, "nccl" on HIP's NVIDIA platform: the transport's name in labels.
inline const char* ccl_name() { return amd_platform() ? "rccl" : "nccl"; }
[[noreturn]] void throw_ccl(ncclResult_t e, const char* call, const char* file, int line);
#else
using Comm = void*;
inline const char* ccl_name() { return "rccl"; }
#endif

}  // namespace c3::hip

#if C3_HIP_HAVE_RCCL
#define C3_CCL(call)                                                                  \
  do {                                                                                \
    const ncclResult_t c3_e_ = (call);                                                \
    if (c3_e_ != ncclSuccess) ::c3::hip::throw_ccl(c3_e_, #call, __FILE__, __LINE__); \
  } while (0)

namespace c3::hip {

/// Runs `issue` (the RCCL calls of one group) between ncclGroupStart and ncclGroupEnd; when
/// a call throws, the group is ended before the exception goes on.
template <class Issue>
void ccl_group(Issue&& issue) {
  C3_CCL(ncclGroupStart());
  try {
    issue();
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  C3_CCL(ncclGroupEnd());
}

}  // namespace c3::hip
#endif
