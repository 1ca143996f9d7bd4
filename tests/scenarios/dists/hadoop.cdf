# Hadoop: flow sizes of Facebook's Hadoop clusters, from
#   A. Roy et al., "Inside the Social Network's (Datacenter) Network",
#   SIGCOMM 2015
# (also Homa's workload W4 and HPCC's FB_Hadoop).  Mostly small flows:
# the median is about 1 KB and some 70% of flows are under 10 KB, while
# a tail of flows up to ~10 MB carries most of the bytes.
#
# These points are a reconstruction of the published CDF's shape from
# those figures, not Facebook's data.  Expect individual quantiles to be
# off; use the file for comparisons between schemes under one workload.
#
# Format (eqload --dist): SIZE_BYTES CUMULATIVE_PROBABILITY; eqload
# interpolates linearly between points.  Mean of these points: ~240 KB.
100		0.03
200		0.10
300		0.20
500		0.30
700		0.40
1000		0.50
2000		0.58
5000		0.65
10000		0.70
30000		0.78
100000		0.85
300000		0.90
1000000		0.95
3000000		0.98
10000000	1.00
