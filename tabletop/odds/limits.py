"""Sizes and limits of the odds computations (tests shrink some through :mod:`tabletop.odds`)."""

from __future__ import annotations


#: Leaves (``resolve`` runs) an exact enumeration may take before sampling instead.
DEFAULT_EXACT_LIMIT = 20_000
#: Wilson 95% half-width <= 1 percentage point at p = 1/2 needs 1.96² / (4 × 0.01²) = 9604.
DEFAULT_SAMPLES = 9_604
#: Random descents used to estimate the size of a roll tree (Knuth's estimator). Its error is heavy-tailed, mostly
#: low: 48 descents put club-blast's every-die-free tree (millions of leaves) at 3,700, and an exact enumeration
#: then ran 20,000 resolves (15 s) before giving up and sampling. 192 put it above the limit for every seed tried;
#: a descent costs one resolve at most, none once the tree is explored, so small trees pay almost nothing.
PROBES = 192
#: Samples per chunk of the vectorised path: 4096 × 50 bases × 8 bytes ≈ 1.6 MB per array.
CHUNK = 4096
#: Samples pushed down the roll tree at a time; their outcomes are tallied and dropped.
SAMPLE_CHUNK = 16_384
#: Leaves (resolved outcomes) the roll tree may hold before it is dropped and regrown:
#: a tree where nearly every sample is a new leaf (a Robotech volley) would otherwise grow
#: with the sample count. Dropping it only costs re-resolving leaves; the odds stay unbiased.
TREE_LEAVES_MAX = 10_000
#: Most samples one template takes (``tabletop odds --samples`` says so before it starts).
MAX_SAMPLES = 1_000_000
Z95 = 1.959963984540054
_COVER_CACHE_MAX = 20_000
