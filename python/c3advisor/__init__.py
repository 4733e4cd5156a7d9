"""c3advisor: how to run a GEMM and a collective concurrently on a GPU, and the settings
a framework applies to do it. Pure Python over the C API of libc3advisor.so (ctypes), so
one built library serves every Python 3. docs/python.md is the reference.

    import c3advisor
    advisor = c3advisor.Advisor("h200x2")
    advice = advisor.advise(gemm=(8192, 8192, 8192), dtype="bf16",
                            collective="all_gather", size="896MiB", ranks=2)
    print(advice.strategy, advice.predicted_s, advice.settings)

c3advisor.torch (imported only by name, where torch is installed) applies the settings
in PyTorch: docs/frameworks.md.
"""
from .advisor import (Advice, Advisor, GreenContexts, NcclSettings, Plan, Profile, RunnerUp,
                      Settings, embedded_profiles, parse_size)
from .settings import settings_from_json
from .errors import (BadFileError, Error, InternalError, InvalidArgumentError,
                     OutOfDomainError, ProfileNotFoundError, UnsupportedError)


def version():
    """The library's release ("0.1.0")."""
    from . import _capi
    return _capi.lib().c3a_library_version().decode()


__all__ = ["Advice", "Advisor", "GreenContexts", "NcclSettings", "Plan", "Profile", "RunnerUp",
           "Settings", "embedded_profiles", "settings_from_json", "parse_size", "version", "Error", "BadFileError",
           "InternalError", "InvalidArgumentError", "OutOfDomainError", "ProfileNotFoundError",
           "UnsupportedError"]
