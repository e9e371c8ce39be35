"""A calibrated base model from measured data (issue 31): ``mcio base``.

- :mod:`~mcio.basemodel.observe`: a Measured condensed per interval x LCU / channel, and the
  choice of intervals (peak-iops, peak-mbs, all, FROM-TO);
- :mod:`~mcio.basemodel.derive`: what the data do not state, calibrated (MP work, host-adapter
  and back-end service, sizes), each figure an Estimate with its provenance and uncertainty;
- :mod:`~mcio.basemodel.build`: the configuration with every figure's provenance (BaseModel);
- :mod:`~mcio.basemodel.spec`: the commented, runnable TOML spec;
- :mod:`~mcio.basemodel.replay`: the measured intervals run on the base (or a changed) model,
  model vs measured in RMF's columns with CIs;
- :mod:`~mcio.basemodel.whatif`: what-ifs of a base spec (a newer channel generation, growth,
  z/HPF, more channels) as edits of its commented text.
"""
from .build import BaseModel, build
from .observe import Observed, observe, select_intervals

__all__ = ["BaseModel", "build", "Observed", "observe", "select_intervals"]
