"""Every model spec of the bench/models zoo, by name, for the scripts that
take the zoo as a whole (bench/gpu_zoo.py, bench/gpu_compare.py --zoo).

The family scripts (make_zoo_*.py, make_zoo2.py) list zoo_common specs;
make_zoo.py lists the shared kit's kind (inputs made per batch size), which
kit_spec() turns into a zoo_common spec at batch 1. The order below puts the
families whose models take longest to export first (the detectors' exports
take the longest), so a pool of workers ends with the quick ones.
"""
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = ["make_zoo_detection", "make_zoo_decoders", "make_zoo_speech", "make_zoo",
            "make_zoo2", "make_zoo_recurrent", "make_zoo_mobile"]


def default_kit():
    """The shared kit's folder: ../shared/bench beside the checkout, or the
    copy scripts/gpu_pack.sh puts into the GPU pack."""
    for d in (os.path.join(HERE, "../../../shared/bench"),
              os.path.join(HERE, "../../.gpu/unpacked/kit")):
        if os.path.exists(os.path.join(d, "make_models.py")):
            return os.path.realpath(d)
    return os.path.realpath(os.path.join(HERE, "../../../shared/bench"))


def kit_spec(s):
    """A make_zoo.py spec (inputs(batch, rs)) as a zoo_common spec at batch 1."""
    inputs = s["inputs"]
    return dict(name=s["name"], build=s["build"], sets=[lambda rs: inputs(1, rs)],
                outputs=list(s["outputs"]))


def family_specs(family, mm):
    """The zoo_common specs of one family script; raises what its import raises."""
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    mod = importlib.import_module(family)
    if family == "make_zoo":
        return [kit_spec(s) for s in mod.zoo_specs(mm)]
    return mod.specs(mm)


def all_specs(mm):
    """(specs by name with their family under spec['family'], {family: import error})."""
    specs, errors = {}, {}
    for family in FAMILIES:
        try:
            for s in family_specs(family, mm):
                s = dict(s)
                s["family"] = family
                specs[s["name"]] = s
        except Exception as e:  # a family that cannot load here is reported, not fatal
            errors[family] = f"{type(e).__name__}: {e}"
    return specs, errors
