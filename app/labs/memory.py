"""Per-GPU training memory: ZeRO model states plus Korthikanti activations, in bytes.

Model states follow ZeRO (Rajbhandari et al. 2019, arXiv 1910.02054, §3 and Figure 1) with
2-byte weights, G = 2-byte gradients (G = 4 for fp32 gradients, as Megatron-LM's main grads and
Llama 3 keep them: 6 + 12/d bytes under the distributed optimizer) and K optimizer bytes per
parameter (K = 12 for mixed-precision Adam: fp32 master weights, momentum and variance).
Tensor and pipeline parallelism split the model first, Ψ_local = params / (tp·pp); ZeRO then
shards over the dp data-parallel ranks:

    stage 0: (2 + 2 + K)Ψ      stage 1: 2Ψ + 2Ψ + KΨ/N
    stage 2: 2Ψ + (2 + K)Ψ/N   stage 3: (2 + 2 + K)Ψ/N

Activations follow Korthikanti et al. 2022 (arXiv 2205.05198, §4 and Table 2), bytes per layer
(16-bit values and 1-byte dropout masks, so the formula is already bytes):

    no parallelism        sbh(34 + 5as/h)
    TP                    sbh(10 + 24/t + 5as/(ht))
    TP + SP               sbh(34 + 5as/h)/t
    selective recompute   sbh(10 + 24/t), or 34sbh/t with SP
    full recompute        2sbh (the layer input only), or 2sbh/t with SP

Under 1F1B the first pipeline stage holds p microbatches of its L/p layers, so it stores about
L layers' worth whatever p is (Korthikanti §4.2.3); the total is therefore L × per-layer bytes
for any pp (assuming at least pp microbatches). Not modelled: the embedding and output-layer
activations, the one layer live during full recompute, interleaving's 1 + (p−1)/(pv) factor,
and SwiGLU, GQA or FlashAttention (which change the constants).

`MemoryResult.steps` is a list of `app.labs._common.Step` (label, symbolic LaTeX, LaTeX with
the numbers substituted, value, unit) for the lab page.
"""

from dataclasses import dataclass, field

from app.errors import FieldError
from app.labs._common import Step, check_choice, check_int, check_real, tex

RECOMPUTE_CHOICES = ("none", "selective", "full")
ACTIVATION_INPUTS = ("seq_len", "micro_batch", "hidden", "heads", "layers")


@dataclass(frozen=True)
class MemoryResult:
    """Per-GPU bytes; field names are the JSON API's."""

    params_bytes: float
    grads_bytes: float
    optimizer_bytes: float
    model_states_bytes: float
    activations_bytes: float
    total_bytes: float
    activations_per_layer_bytes: float = 0.0
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def model_states_bytes(
    params: float,
    dp: int,
    zero_stage: int,
    optimizer_bytes_per_param: float,
    grad_bytes_per_param: float = 2.0,
) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per GPU for Ψ local params: ZeRO §5.1, Figure 1;
    4-byte gradients are Megatron-LM's fp32 main grads (dist_optimizer.md: 6 + 12/d)."""
    n = float(dp)
    weights = 2.0 * params / (n if zero_stage >= 3 else 1.0)
    grads = grad_bytes_per_param * params / (n if zero_stage >= 2 else 1.0)
    optimizer = optimizer_bytes_per_param * params / (n if zero_stage >= 1 else 1.0)
    return weights, grads, optimizer


def activation_bytes_per_layer(
    seq_len: int,
    micro_batch: int,
    hidden: int,
    heads: int,
    tp: int = 1,
    recompute: str = "none",
    sequence_parallel: bool = False,
) -> float:
    """Activation bytes of one transformer layer: Korthikanti et al. 2022, Table 2 (per layer)."""
    sbh = float(seq_len) * micro_batch * hidden
    t = float(tp)
    attention = 5.0 * heads * seq_len / hidden  # the 5as/h scores, softmax and dropout term
    if recompute == "full":
        return 2.0 * sbh / (t if sequence_parallel else 1.0)
    if recompute == "selective":
        return 34.0 * sbh / t if sequence_parallel else sbh * (10.0 + 24.0 / t)
    if sequence_parallel:
        return sbh * (34.0 + attention) / t
    # Without SP the LayerNorm and dropout inputs (the 10) are replicated on every TP rank.
    return sbh * (10.0 + 24.0 / t + attention / t)


def _activation_formula(recompute: str, sequence_parallel: bool) -> str:
    """The Table 2 row used, as LaTeX: Korthikanti et al. 2022, Table 2."""
    if recompute == "full":
        return r"\frac{2sbh}{t}" if sequence_parallel else "2sbh"
    if recompute == "selective":
        return r"\frac{34sbh}{t}" if sequence_parallel else r"sbh\left(10+\frac{24}{t}\right)"
    if sequence_parallel:
        return r"\frac{sbh}{t}\left(34+\frac{5as}{h}\right)"
    return r"sbh\left(10+\frac{24}{t}+\frac{5as}{ht}\right)"


def memory(
    params: float,
    dp: int = 1,
    tp: int = 1,
    pp: int = 1,
    zero_stage: int = 0,
    optimizer_bytes_per_param: float = 12.0,
    seq_len: int | None = None,
    micro_batch: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    layers: int | None = None,
    recompute: str = "none",
    sequence_parallel: bool = False,
    grad_bytes_per_param: float = 2.0,
) -> MemoryResult:
    """Per-GPU training memory: ZeRO (arXiv 1910.02054) §5 + Korthikanti 2022 Table 2, §4.2.3."""
    psi = check_real("params", params, positive=True)
    check_int("dp", dp, 1)
    check_int("tp", tp, 1)
    check_int("pp", pp, 1)
    check_int("zero_stage", zero_stage, 0)
    if zero_stage > 3:
        raise FieldError("zero_stage", "must be 0, 1, 2 or 3")
    k = check_real("optimizer_bytes_per_param", optimizer_bytes_per_param, positive=False)
    grad = check_real("grad_bytes_per_param", grad_bytes_per_param, positive=True)
    check_choice("recompute", recompute, RECOMPUTE_CHOICES)
    if not isinstance(sequence_parallel, bool):
        raise FieldError("sequence_parallel", "must be true or false")

    local = psi / (tp * pp)
    weights, grads, optimizer = model_states_bytes(local, dp, zero_stage, k, grad)
    states = weights + grads + optimizer
    steps = [
        Step(
            "Parameters per model-parallel rank",
            r"\Psi = \frac{\text{params}}{t \cdot p}",
            rf"\frac{{{tex(psi)}}}{{{tp} \cdot {pp}}}",
            local,
            "",
        ),
        Step(
            f"Model states, ZeRO stage {zero_stage}",
            _states_formula(zero_stage, grad),
            _states_substituted(zero_stage, local, k, dp, grad),
            states,
            "B",
        ),
    ]

    per_layer = activations = 0.0
    given = {"seq_len": seq_len, "micro_batch": micro_batch, "hidden": hidden}
    given |= {"heads": heads, "layers": layers}
    if any(value is not None for value in given.values()):
        s, b, h, a, n_layers = (_required(name, value) for name, value in given.items())
        if a % tp:
            raise FieldError("heads", f"must be divisible by tp ({a} heads, tp={tp})")
        per_layer = activation_bytes_per_layer(s, b, h, a, tp, recompute, sequence_parallel)
        activations = per_layer * n_layers  # 1F1B first stage: p microbatches × L/p layers
        sp_label = "on" if sequence_parallel else "off"
        steps += [
            Step(
                f"Activations per layer (recompute {recompute}, SP {sp_label})",
                _activation_formula(recompute, sequence_parallel),
                rf"s={s},\ b={b},\ h={h},\ a={a},\ t={tp}",
                per_layer,
                "B",
            ),
            Step(
                "Activations on the first pipeline stage (about L layers under 1F1B)",
                r"L \times \text{per layer}",
                rf"{n_layers} \times {tex(per_layer)}",
                activations,
                "B",
            ),
        ]
    total = states + activations
    steps.append(
        Step(
            "Total per GPU",
            r"\text{model states} + \text{activations}",
            rf"{tex(states)} + {tex(activations)}",
            total,
            "B",
        )
    )
    return MemoryResult(
        params_bytes=weights,
        grads_bytes=grads,
        optimizer_bytes=optimizer,
        model_states_bytes=states,
        activations_bytes=activations,
        total_bytes=total,
        activations_per_layer_bytes=per_layer,
        steps=steps,
        notes=_notes(activations > 0, grad),
    )


def _required(name: str, value: int | None) -> int:
    """An activation input that must be given with the others (no source: validation)."""
    if value is None:
        raise FieldError(name, f"required when any of {', '.join(ACTIVATION_INPUTS)} is given")
    return check_int(name, value, 1)


def _states_formula(zero_stage: int, grad: float = 2.0) -> str:
    """ZeRO's per-stage memory expression: Rajbhandari et al. 2019, Figure 1 (G = 2 there)."""
    if grad == 2.0:
        return (
            r"(2+2+K)\Psi",
            r"2\Psi + 2\Psi + \frac{K\Psi}{N}",
            r"2\Psi + \frac{(2+K)\Psi}{N}",
            r"\frac{(2+2+K)\Psi}{N}",
        )[zero_stage]
    return (
        r"(2+G+K)\Psi",
        r"2\Psi + G\Psi + \frac{K\Psi}{N}",
        r"2\Psi + \frac{(G+K)\Psi}{N}",
        r"\frac{(2+G+K)\Psi}{N}",
    )[zero_stage]


def _states_substituted(zero_stage: int, psi: float, k: float, n: int, grad: float = 2.0) -> str:
    """ZeRO's per-stage expression with numbers: Rajbhandari et al. 2019, Figure 1."""
    p, kk = tex(psi), tex(k)
    if grad == 2.0:
        return (
            rf"(4+{kk}) \times {p}",
            rf"4 \times {p} + \frac{{{kk} \times {p}}}{{{n}}}",
            rf"2 \times {p} + \frac{{(2+{kk}) \times {p}}}{{{n}}}",
            rf"\frac{{(4+{kk}) \times {p}}}{{{n}}}",
        )[zero_stage]
    g = tex(grad)
    return (
        rf"(2+{g}+{kk}) \times {p}",
        rf"(2+{g}) \times {p} + \frac{{{kk} \times {p}}}{{{n}}}",
        rf"2 \times {p} + \frac{{({g}+{kk}) \times {p}}}{{{n}}}",
        rf"\frac{{(2+{g}+{kk}) \times {p}}}{{{n}}}",
    )[zero_stage]


def _notes(with_activations: bool, grad: float) -> list[str]:
    """Where the numbers come from and what the model leaves out (module docstring)."""
    notes = [
        f"Model states: ZeRO's Figure 1 accounting, 2-byte weights, {grad:g}-byte gradients and "
        "K optimizer bytes per parameter, split by TP × PP first, then sharded by ZeRO."
    ]
    if with_activations:
        notes.append(
            "Activations: Korthikanti et al. 2022, Table 2 (GPT-3-style attention that "
            "materialises the s × s scores); the first 1F1B stage holds about L layers' worth."
        )
    notes.append(
        "Left out: the embedding and output layers and fp32 logits, FlashAttention, SwiGLU and "
        "GQA (they change the constants), ZeRO-3's gathered layers in flight, interleaving's "
        "1 + (p−1)/(pv), NCCL buffers, allocator fragmentation and transient peaks."
    )
    return notes
