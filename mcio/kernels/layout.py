"""Index constants shared by the engine (packing) and the kernels (reading). Plain ints only."""

# integer parameters ip[]
IP_OPEN, IP_SLOTS, IP_DEVICES, IP_EXPOSURES, IP_CHANNELS, IP_OE_CAP, IP_SELECTION, IP_HA_SERVERS, \
    IP_BE_SERVERS, IP_WARMUP, IP_MEASURE, IP_BIND, IP_CLASSES, IP_TRACE, IP_GROUPS, \
    IP_HYPERPAV = range(16)
N_IP = 16

# float parameters fp[]
FP_MP_START_FRACTION, FP_LINK_KB_PER_MS, FP_ZHPF_SHARE = range(3)
N_FP = 3

# distribution rows dp[row]
D_INTERARRIVAL, D_THINK, D_HA, D_BACKEND, D_MP_SHAPE = range(5)
N_DIST = 5
# rows of random draws, each with its own substreams (kernels/blockrng.py): the distributions,
# then the uniforms that pick an I/O's class, transport mode, cache miss and device
R_CLASS, R_MODE, R_MISS, R_DEVICE = range(N_DIST, N_DIST + 4)
N_ROWS = N_DIST + 4

# per-replication scalar accumulators acc[rep, k]
(A_N, A_TIME_MS, A_SUM_RESP, A_SUM_IOSQ, A_SUM_PEND, A_SUM_CMR, A_SUM_DISC, A_SUM_CONN,
 A_SQ_RESP, A_SQ_IOSQ, A_SQ_PEND, A_SQ_CMR, A_SQ_DISC, A_SQ_CONN,
 A_AREA_SYS, A_AREA_IOSQ, A_AREA_HA, A_AREA_BE, A_DEV_BUSY_MS, A_UNSTABLE, A_EVENTS,
 A_DEFERRED, A_AREA_MPQ, A_DEV_BUSY_ZVM_MS) = range(24)
N_ACC = 24
COMPONENTS = ("response", "iosq", "pend", "cmr", "disconnect", "connect")

# per-channel accumulators chs[rep, channel, k]
C_MP_BUSY_MS, C_LINK_BUSY_MS, C_AREA_OE, C_OE_MAX, C_SSCH, C_KB, C_DEFERRED = range(7)
N_CH = 7

# per-device accumulators devs[rep, device, k]
V_SSCH, V_BUSY_MS = range(2)
N_DEV = 2
