"""Index constants shared by the engine (packing) and the kernels (reading): plain ints (Numba
freezes them into the kernels), and the stable names of the rows of random draws."""

# integer parameters ip[]
IP_OPEN, IP_SLOTS, IP_DEVICES, IP_EXPOSURES, IP_CHANNELS, IP_OE_CAP, IP_SELECTION, IP_HA_SERVERS, \
    IP_BE_SERVERS, IP_WARMUP, IP_MEASURE, IP_BIND, IP_CLASSES, IP_TRACE, IP_GROUPS, \
    IP_HYPERPAV, IP_POSITIONAL, IP_MISS_POLICY, IP_SPAN_CYL, IP_LN_SLOTS, IP_ROUTES_GENERAL = range(21)
# ip[IP_LN_SLOTS]: the most transfers one link may hold at once; ip[IP_ROUTES_GENERAL] 1: some
# route crosses several links (kernels/transfer.py's general engine), 0: every route one link;
# ip[IP_WORKLOADS] 1: the configuration's own workloads and control units (kernels/workloads.py,
# per-workload and per-device statistics)
IP_WORKLOADS = 21
N_IP = 22

# float parameters fp[]
FP_MP_START_FRACTION, FP_LINK_KB_PER_MS, FP_ZHPF_SHARE, FP_SEEK_SETTLE_MS, FP_SEEK_MS_PER_SQRT_CYL, \
    FP_MEDIA_KB_PER_MS, FP_CYLINDER_KB, FP_P_SEQUENTIAL = range(8)
N_FP = 8
# ip[IP_POSITIONAL] 1: a positional device (devices.geometry 3390/3380); ip[IP_MISS_POLICY]:
MISS_BACKEND, MISS_READ_THROUGH, MISS_STAGING = range(3)

# columns of the per-class MP table cls_mp[k, :] past its two modes (0 CCW, 1 z/HPF: the MP work,
# ms): the wake-up work of an idle MP (ms) and the work order (1.0: one FIFO for start and end
# work; 0.0: end work first). Only the event engine reads them (fast_path_applies keeps models
# that set them off the fast path).
MPW_WAKE, MPW_FIFO = 2, 3
N_MPW = 4

# Rows of random draws. Each row has its own substreams (kernels/blockrng.py), keyed by the row's
# stable name below, not by its index: inserting, removing or reordering rows leaves every other
# row's draws bit-identical. The first DIST_ROWS are distribution rows dp[row] (what the field
# samples); the UNIFORM_ROWS are the uniforms that pick an I/O's class, transport mode, cache miss
# and device. A new row is one name here (and its index constant); never rename a row: its name
# is its stream.
DIST_ROWS = ("arrival", "workload.think_ms", "control_unit.ha_service_us",
             "control_unit.backend_service_ms", "channels.mp_work_shape", "devices.rotation_ms")
UNIFORM_ROWS = ("class", "mode", "miss", "device", "devices.sequential", "devices.cylinder")
ROW_NAMES = DIST_ROWS + UNIFORM_ROWS
D_INTERARRIVAL = ROW_NAMES.index("arrival")
D_THINK = ROW_NAMES.index("workload.think_ms")
D_HA = ROW_NAMES.index("control_unit.ha_service_us")
D_BACKEND = ROW_NAMES.index("control_unit.backend_service_ms")
D_MP_SHAPE = ROW_NAMES.index("channels.mp_work_shape")
D_ROTATION = ROW_NAMES.index("devices.rotation_ms")        # positional: rotational latency (ms)
N_DIST = len(DIST_ROWS)
R_CLASS = ROW_NAMES.index("class")
R_MODE = ROW_NAMES.index("mode")
R_MISS = ROW_NAMES.index("miss")
R_DEVICE = ROW_NAMES.index("device")
R_SEQUENTIAL = ROW_NAMES.index("devices.sequential")      # positional: continue, or jump?
R_CYLINDER = ROW_NAMES.index("devices.cylinder")          # positional: where a jump lands
N_ROWS = len(ROW_NAMES)
# A configuration's control units other than its first draw their services from rows of their
# own, after these (rows N_ROWS, N_ROWS + 1, ... ; distribution rows), keyed by the names below
# (``mcio.engine.units``); the first control unit keeps the rows above.
CU_ROW_NAMES = ("control_unit.{}.ha_service_us", "control_unit.{}.backend_service_ms")

# The accumulator slots (acc A_*, chs C_*, devs V_*) are declared with what each becomes in the
# results Dataset, once, in kernels/stats.py; re-exported here for code that reads them from here.
from .stats import *  # noqa: E402,F401,F403
