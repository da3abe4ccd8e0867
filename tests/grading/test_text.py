"""Notation, abbreviations, numbers and negation read the same however they are typed."""

from app.grading.evidence import compile_keyword, find, read
from app.grading.subjects import entities
from app.grading.text import clauses, lower, normalise


def stems(text: str) -> list[str]:
    return [w.stem for c in clauses(lower(normalise(text))) for w in c.words]


def found(keyword: str, answer: str) -> bool:
    affirmed, _denied = find(compile_keyword(keyword), read(answer))
    return affirmed


def test_greek_letters_and_their_names_meet() -> None:
    assert found("2(N-1)α", "latency 2(n-1)*alpha")
    assert found("√(2δM)", "tau = sqrt(2 delta M)")
    assert found("γ = 0.001", "gamma=0.001")
    assert found("δ/τ", "overhead is delta/tau")


def test_psi_is_psi_or_a_capital_p_after_a_coefficient() -> None:
    for typed in ("4Ψ + 12Ψ/N", "4psi + 12psi/N", "4P + 12P/N", "4 psi+12 psi/N"):
        assert found("12Ψ/N", typed), typed
    assert not found("12Ψ/N", "PP and P2P")


def test_dashes_minus_signs_and_times_are_one_symbol_each() -> None:
    assert found("2(N−1)/N", "2(N-1)/N")
    assert found("2(N-1)/N", "2(N – 1)/N · K")
    assert found("1.5×", "it is 1.5x as much")
    assert found("1.5×", "1.5 times")


def test_scientific_notation_and_units_compare_as_numbers() -> None:
    for typed in ("1e-4", "10^-4", "0.0001", "1 × 10^-4"):
        assert found("α = 0.0001", f"alpha = {typed}") or found("1e-4", typed), typed
    assert found("1,120 GB", "70B needs 1.12 TB")
    assert found("1,120 GB", "70B -> 1120 GB")
    assert found("3.1 h", "MTBF about 3.09h")
    assert found("10.23 ms", "10,230 us")
    assert not found("3.1 h", "Llama 3 on 16K GPUs")  # a bare small number is not a quantity
    assert not found("1,120 GB", "1,120 MB")


def test_whole_tokens_never_substrings() -> None:
    assert not found("5 µs", "plus 5 ms of msgs")
    assert not found("N-1", "2N-10")
    assert not found("4Ψ +", "14Ψ + 2Ψ/N")
    assert not found("bsh", "bshx")


def test_abbreviations_of_the_field() -> None:
    assert stems("RS then AG") == stems("reduce-scatter then all-gather")
    assert stems("allreduce") == stems("all-reduce") == stems("AR")
    assert stems("recomputation") == stems("recompute")
    assert stems("cut in half") == stems("halves") == stems("halving")
    assert stems("micro-batch") == stems("microbatches")
    assert stems("fwd and bwd grads") == stems("forward and backward gradients")
    assert stems("optimiser states") == stems("optimizer states")
    assert found("same bytes as the ring", "the same bytes as a ring")


def test_typos_in_long_words_are_forgiven() -> None:
    assert found("recomputation", "selective recomptation")
    assert found("fragmentation", "and fragmentaton")
    assert not found("dropout", "dropped")


def test_negation_reaches_what_follows_it_within_a_statement() -> None:
    assert not found("reduce-scatter", "it's not a reduce-scatter")
    assert not found("reduce-scatter", "it isnt a reduce scatter at all")
    assert not found("residual", "the residual isn't involved")
    assert not found("overlap", "it never overlaps with compute")
    assert not found("all-gather", "a broadcast rather than an all-gather")
    assert not found("all-gather", "a broadcast instead of an all-gather")
    assert not found("all-gather", "it is wrong to say it all-gathers")
    # … and stops at the end of the statement, or at "but".
    assert found("all-gather", "not a broadcast, but an all-gather")
    assert found("all-gather", "not a broadcast. It all-gathers")


def test_a_point_stated_in_the_negative_matches_a_negative_answer() -> None:
    assert found("does not grow", "it doesn't grow with N")
    assert found("no drops", "serve with no token drops")
    assert not found("does not grow", "it grows with N")


def test_a_statement_says_what_it_is_about() -> None:
    assert entities("dp all-reduces, zero-3 gathers") == {"dp", "zero3"}
    assert entities("zero1/2 and fsdp") == {"zero1", "zero2", "zero3"}
    assert entities("tensor parallelism and stage 1") == {"tp", "zero1"}
    part = read("DP all-gathers parameters, TP sends point-to-point").clauses[0]
    assert part.subject_at(part.text.index("parameters")) == {"dp"}
    assert part.subject_at(part.text.index("point")) == {"tp"}


def test_numbers_too_large_to_read_are_not_quantities() -> None:
    answer = read(f"10^99999, 1e999999 and 10^{'9' * 5000}; {'9' * 5000} GB")
    assert all(q.value < float("inf") for qs in answer.quantities for q in qs)


def test_numbers_read_the_same_in_any_notation() -> None:
    assert found("8,000 tokens", "~8k tokens")
    assert found("4.19M tokens", "4.19 million tokens")
    assert found("0.001", "a thousandth")
    assert found("14%", "14 percent")
    assert found("6 all-reduces", "six ARs")
    assert found("four all-reduces", "4 all-reduces")
    assert found("second choice", "2nd choice")
    assert found("2K", "goes to ~2K per rank")  # the symbol K, not two thousand
    assert compile_keyword("2K").formula and not found("2K", "2,000 bytes")


def test_identifiers_and_irregular_verbs_are_their_words() -> None:
    assert found("SM_ACTIVE", "SM active is low")
    assert found("limit_all_gathers", "set limit_all_gathers")
    assert found("fallen off the bus", "the gpu fell off the bus")
    assert found("hardware fault", "a hw fault")


def test_negation_stays_within_its_reach() -> None:
    assert found("pinned host buffer", "without it, each byte goes via a pinned host buffer")
    assert found("bounce", "no GDR = data bounces through the CPU")
    assert found("faulthandler", "no ptrace: use faulthandler")
    assert found("log nothing", "the hung ranks don't log anything")
    assert not found("log nothing", "the hung ranks log their operation")


def test_spellings_of_one_thing_meet() -> None:
    assert found("receive", "they recieve it")  # two letters swapped
    assert found("GPU", "all the GPUs")
    assert found("fp32", "keep it in float32")
    assert found("ZeRO-3", "with Z3")
    assert found("prefetch", "pre-fetch the next unit")
    assert found("startup", "a start-up hang")
    assert found("all-to-all", "all 2 all")
    assert found("MTBF", "the mean time between failures halves")
    assert found("synchronous", "a sync save")


def test_a_statement_may_name_its_subject_after_what_it_says() -> None:
    part = read("DP all-reduces the grads. gathers the weights twice in ZeRO-3").clauses[1]
    assert "zero3" in part.subject_at(part.text.index("weights"))


def test_a_formula_is_found_with_its_factors_in_another_order_but_not_another_formula() -> None:
    wanted = compile_keyword("2(N-1)K/N")
    for said in ("each sends 2K(N−1)/N", "K·2·(N-1) / N per GPU", "(N-1)2K/N", "(2K(N-1)/N)"):
        assert find(wanted, read(said)) == (True, False), said
    for other in ("each sends 2(N-1)/N", "2K(N-1)/(NB)", "2(N-1)K", "N/(2K(N-1))"):
        assert find(wanted, read(other))[0] is False, other
    assert find(wanted, read("it is not 2K(N-1)/N")) == (False, True)
    assert find(compile_keyword("K/B"), read("B/K")) == (False, False)  # too short to reorder
