"""Settings from the JSON document of `c3advisor advise --json`, for hosts that apply
advice computed elsewhere (no libc3advisor.so needed: the GPU machines of a cluster can
read advice written by `c3advisor advise --json` or Advice.json)."""
import json as _json
from typing import Union

from .advisor import GreenContexts, NcclSettings, Settings
from .errors import InvalidArgumentError


def settings_from_json(doc: Union[str, dict]) -> Settings:
    """Settings from the document of `c3advisor advise --json` (or its "settings" object),
    for hosts without libc3advisor.so: advise elsewhere, apply here."""
    if isinstance(doc, str):
        try:
            doc = _json.loads(doc)
        except ValueError as e:
            raise InvalidArgumentError("advice is not JSON: %s" % e, "C3A_ERR_INVALID_ARGUMENT") from None
    if not isinstance(doc, dict):
        raise InvalidArgumentError("advice must be a JSON object, not %s" % type(doc).__name__,
                                   "C3A_ERR_INVALID_ARGUMENT")
    s = doc.get("settings", doc)
    try:
        nccl = s["nccl"]
        green = s["green_contexts"]
        ce = s["copy_engine"]
        return Settings(
            launch_order=str(s["launch_order"]), overlap=bool(s["overlap"]), prefetch=bool(s["prefetch"]),
            nccl=None if nccl is None else NcclSettings(int(nccl["max_ctas"]), int(nccl["min_ctas"])),
            green_contexts=None if green is None else GreenContexts(
                int(green["gemm_sms"]), None if green["collective_sms"] is None else int(green["collective_sms"])),
            copy_engine=None if ce is None else str(ce["implementation"]), chunks=int(s.get("chunks", 1)))
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise InvalidArgumentError("not the settings of `c3advisor advise --json`: %s %s" %
                                   (type(e).__name__, e), "C3A_ERR_INVALID_ARGUMENT") from None
