"""The words of the field and their spellings: abbreviations spelt out, synonyms read as one.

The same tables read an answer and a rubric keyword, so "RS" meets "reduce-scatter", "4 ARs"
meets "four all-reduces" and "fell off the bus" meets "fallen off the bus".
"""

import re

# Abbreviations of the field, spelt out the same way on both sides.
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "rs": ("reduce", "scatter"),
    "ag": ("all", "gather"),
    "ar": ("all", "reduce"),
    "ars": ("all", "reduce"),
    "a2a": ("all", "to", "all"),
    "allreduce": ("all", "reduce"),
    "allreduces": ("all", "reduce"),
    "allgather": ("all", "gather"),
    "allgathers": ("all", "gather"),
    "reducescatter": ("reduce", "scatter"),
    "alltoall": ("all", "to", "all"),
    "p2p": ("point", "to", "point"),
    "dp": ("data", "parallel"),
    "tp": ("tensor", "parallel"),
    "pp": ("pipeline", "parallel"),
    "ep": ("expert", "parallel"),
    "cp": ("context", "parallel"),
    "sp": ("sequence", "parallel"),
    "fsdp": ("fsdp",),
    "fwd": ("forward",),
    "bwd": ("backward",),
    "grad": ("gradient",),
    "grads": ("gradient",),
    "param": ("parameter",),
    "params": ("parameter",),
    "mb": ("microbatch",),
    "mbs": ("microbatch",),
    "msg": ("message",),
    "msgs": ("message",),
    "bw": ("bandwidth",),
    "mem": ("memory",),
    "acts": ("activation",),
    "seq": ("sequence",),
    "seqs": ("sequence",),
    "ckpt": ("checkpoint",),
    "lr": ("learning", "rate"),
    "util": ("utilization",),
    "comm": ("communication",),
    "comms": ("communication",),
    "w/": ("with",),
    "recompute": ("recomput",),
    "halves": ("halv",),
    "halved": ("halv",),
    "halving": ("halv",),
    "gpipe": ("gpipe",),
    "w/o": ("without",),
    "b/c": ("because",),
    "bc": ("because",),
    "gdr": ("gpudirect", "rdma"),
    "gpudirect": ("gpudirect",),
    "pg": ("process", "group"),
    "pgs": ("process", "group"),
    "wgrad": ("weight", "gradient"),
    "dgrad": ("input", "gradient"),
    "oom": ("out", "of", "memory"),
    "ooms": ("out", "of", "memory"),
    "bsz": ("batch", "size"),
    "op": ("operation",),
    "ops": ("operation",),
    "hw": ("hardware",),
    "sw": ("software",),
    "perf": ("performance",),
    "num": ("number",),
    "xfer": ("transfer",),
    "xfers": ("transfer",),
    "frag": ("fragmentation",),
    "alloc": ("allocation",),
    "allocs": ("allocation",),
    "prob": ("probability",),
    "probs": ("probability",),
    "avg": ("mean",),
    "tok": ("token",),
    "toks": ("token",),
    "tput": ("bandwidth",),
    "thru": ("through",),
    "sync": ("synchronous",),
    "async": ("asynchronous",),
    "config": ("configuration",),
    "init": ("initialization",),
    "accum": ("accumulation",),
    "aux": ("auxiliary",),
    "wts": ("weights",),
    "ib": ("infiniband",),
    "remat": ("recompute",),
    "rematerialize": ("recompute",),
    "rematerialized": ("recompute",),
    "rematerialization": ("recompute",),
}
# Words of the field people use for one another, read as one: "throughput" makes a point
# that says "bandwidth", "a couple of experts" one that says "a few".
SYNONYMS: dict[str, str] = {
    "throughput": "bandwidth",
    "delay": "latency",
    "delays": "latency",
    "partition": "shard",
    "partitions": "shard",
    "partitioned": "shard",
    "partitioning": "shard",
    "couple": "few",
    "handful": "few",
    "identical": "same",
    "equal": "same",
    "equals": "same",
    "largest": "biggest",
    "highest": "biggest",
    "smallest": "fewest",
    "lowest": "fewest",
    "least": "fewest",
    "quick": "fast",
    "quicker": "faster",
    "omit": "skip",
    "omitted": "skip",
    "omits": "skip",
    "bypass": "skip",
    "bypasses": "skip",
    "bypassed": "skip",
    "twice": "double",
    "doubles": "double",
    "doubled": "double",
    "average": "mean",
    "averaged": "mean",
    "tiny": "small",
    "print": "log",
    "prints": "log",
    "printed": "log",
    "printing": "log",
}
# Irregular verbs, read as their plain form: "fell off the bus" makes "fallen off the bus".
IRREGULAR = {
    "fell": "fall", "fallen": "fall", "lost": "lose", "sent": "send", "held": "hold",
    "kept": "keep", "ran": "run", "began": "begin", "begun": "begin", "brought": "bring",
    "built": "build", "chose": "choose", "chosen": "choose", "broke": "break",
    "broken": "break", "wrote": "write", "written": "write", "grew": "grow", "grown": "grow",
    "hid": "hide", "hidden": "hide", "spent": "spend", "took": "take", "taken": "take",
    "gave": "give", "given": "give", "went": "go", "gone": "go", "saw": "see", "seen": "see",
    "thrown": "throw", "threw": "throw", "shown": "show", "fed": "feed", "led": "lead",
    "caught": "catch", "sought": "seek", "bought": "buy", "thought": "think",
    "swept": "sweep", "slept": "sleep", "froze": "freeze", "frozen": "freeze",
}  # fmt: skip
SYNONYMS |= IRREGULAR
# Direction words, read as one word per direction and kind: "grows with N" meets "increases
# with N", "more data" meets "larger data"; "shrinks with N" and "less data", of the other
# direction, never meet them. Verbs and comparatives stay apart: "comm grows" is not said by
# "more experts".
GROWING = (
    "grow grows growing grew grown increase increases increased increasing rise rises rising "
    "rose raise raises raised raising"
).split()
SHRINKING = (
    "shrink shrinks shrinking shrank shrunk decrease decreases decreased decreasing fall "
    "falls falling fell fallen"
).split()
MORE = "more most higher larger bigger greater".split()
LESS = "less fewer lower smaller".split()
SYNONYMS |= dict.fromkeys(GROWING, "grow") | dict.fromkeys(SHRINKING, "shrink")
SYNONYMS |= dict.fromkeys(MORE, "more") | dict.fromkeys(LESS, "less")
JOINED: dict[tuple[str, ...], str] = {("micro", "batch"): "microbatch"}
JOINED |= {("micro", "batches"): "microbatch"}
JOINED |= {("cut", "in", "half"): "halv", ("by", "half"): "halv", ("zero", "bubble"): "zb"}
JOINED |= {("zb", "h1"): "zb"}
# A collective is one word however it is typed ("all-to-all", "all to all", "A2A").
JOINED |= {("all", "to", "all"): "alltoall", ("all", "reduce"): "allreduce"}
JOINED |= {("all", "gather"): "allgather", ("reduce", "scatter"): "reducescatter"}
JOINED |= {("all", "reduces"): "allreduce", ("all", "gathers"): "allgather"}
JOINED |= {("all", "reduced"): "allreduce", ("all", "gathered"): "allgather"}
JOINED |= {("reduce", "scatters"): "reducescatter", ("reduce", "scattered"): "reducescatter"}
JOINED |= {("all", "two", "all"): "alltoall"}
# Compounds typed as one word or two.
JOINED |= {("start", "up"): "startup", ("heat", "map"): "heatmap", ("check", "point"): "checkpoint"}
JOINED |= {("hyper", "parameter"): "hyperparameter", ("nv", "link"): "nvlink"}
JOINED |= {("work", "load"): "workload", ("bottle", "neck"): "bottleneck"}
JOINED |= {
    ("mean", "time", "between", "failures"): "mtbf",
    ("mean", "time", "between", "failure"): "mtbf",
}
JOINED |= {("silent", "data", "corruption"): "sdc", ("silent", "data", "corruptions"): "sdc"}
JOINED |= {("times", "out"): "timeout", ("timed", "out"): "timeout", ("time", "out"): "timeout"}


# A small count written in digits is read as its word: "4 ARs" makes "four all-reduces".
NUMBER_WORDS = {
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "10": "ten", "11": "eleven", "12": "twelve",
}  # fmt: skip
_FRACTIONS = {"tenth": "0.1", "hundredth": "0.01", "thousandth": "0.001", "millionth": "1e-6"}
_FRACTION = re.compile(r"\b(?:a|one)\s+(tenth|hundredth|thousandth|millionth)\b")
_ORDINALS = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth"}
_ORDINAL = re.compile(r"\b(1st|2nd|3rd|4th)\b")
_PERCENT = re.compile(r"(?<=\d)\s*(?:percent|per cent|pct)\b")
_DTYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float8": "fp8"}
_DTYPE = re.compile(r"\b(float32|float16|bfloat16|float8)\b")
_ZERO_STAGE = re.compile(r"\bz(?:ero)?[- ]?([123])\b")  # "Z3", "zero 3": ZeRO-3


def spell_out(text: str) -> str:
    """One notation for what is typed many ways (lower-case text): "a thousandth" is 0.001,
    "14 percent" 14%, "2nd" second, "bfloat16" bf16, "Z3" and "zero 3" ZeRO-3."""
    text = _FRACTION.sub(lambda m: _FRACTIONS[m[1]], text)
    text = _ORDINAL.sub(lambda m: _ORDINALS[m[1]], text)
    text = _DTYPE.sub(lambda m: _DTYPES[m[1]], text)
    text = _ZERO_STAGE.sub(r"zero-\1", text)
    return _PERCENT.sub("%", text)
