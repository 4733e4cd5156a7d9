"""What a measurement file records about the machine beyond what torch reports: the NVIDIA
driver's version (nvidia-smi). Standard library only; used by examples/torch_fsdp_overlap.py
and scripts/gpu-jobs/torch_collectives.py (and the torch jobs that import it)."""
import subprocess


def driver_version():
    """The NVIDIA driver's version (nvidia-smi's first GPU), or "unknown"."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        return out.stdout.split("\n")[0].strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
