# WebSearch: flow sizes of the web-search cluster measured in
#   M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010,
# as later used by pFabric (SIGCOMM 2013), HPCC (SIGCOMM 2019) and Homa
# (SIGCOMM 2018, workload W5).  Most flows are small, most bytes are in
# flows of 1-30 MB.
#
# These points are a reconstruction of the published CDF's shape, not the
# authors' data: the curve is commonly given in 1460-byte segments (from 6
# to 20000), converted here to bytes.  Expect individual quantiles to be
# off; use the file for comparisons between schemes under one workload.
#
# Format (eqload --dist): SIZE_BYTES CUMULATIVE_PROBABILITY; eqload
# interpolates linearly between points.  Mean of these points: ~1.67 MB.
8760		0.15
18980		0.20
27740		0.30
48180		0.40
77380		0.53
194180		0.60
973820		0.70
1946180		0.80
4866180		0.90
9733820		0.97
29200000	1.00
