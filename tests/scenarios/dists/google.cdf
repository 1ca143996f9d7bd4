# Google: message sizes of all RPC traffic aggregated over the
# applications of a Google datacenter, Homa's workload W3 in
#   B. Montazeri et al., "Homa: A Receiver-Driven Low-Latency Transport
#   Protocol Using Network Priorities", SIGCOMM 2018.
# Dominated in count by messages of a few hundred bytes (the median is
# under 1 KB); a thin tail of messages up to ~10 MB carries much of the
# bytes.
#
# These points are a reconstruction of the published CDF's shape, not
# Google's data.  Expect individual quantiles to be off; use the file for
# comparisons between schemes under one workload.
#
# Format (eqload --dist): SIZE_BYTES CUMULATIVE_PROBABILITY; eqload
# interpolates linearly between points.  Mean of these points: ~69 KB.
100		0.10
200		0.20
300		0.30
500		0.40
700		0.48
1000		0.55
2000		0.63
5000		0.72
10000		0.78
30000		0.85
100000		0.91
300000		0.95
1000000		0.99
3000000		0.998
10000000	1.00
