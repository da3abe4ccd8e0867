// A card's next FSRS state, computed in the browser as the server computes it.
//
// The formulas (initial stability and difficulty, recall and forget stability, short-term
// stability, the forgetting curve) are ts-fsrs's (static/vendor/ts-fsrs). The steps around
// them follow py-fsrs's Scheduler.review_card, which the server grades with: whole days
// elapsed as 24-hour periods, learning and relearning steps, the interval from the
// stability, and the fuzz drawn from the value the server sends for the card's review count.
// tests/srs/test_offline_fsrs.py checks that both give the same results.
"use strict";

(function (root, factory) {
  if (typeof module === "object" && module.exports) {
    module.exports = factory(require("../vendor/ts-fsrs/ts-fsrs.umd.js"));
  } else {
    root.RingsideFsrs = factory(root.FSRS);
  }
})(typeof globalThis !== "undefined" ? globalThis : this, (FSRS) => {
  const DAY = 864e5;
  const MINUTE = 6e4;
  const LEARNING = 1;
  const REVIEW = 2;
  const RELEARNING = 3;
  const AGAIN = 1;
  const HARD = 2;
  const GOOD = 3;
  const EASY = 4;
  // py-fsrs's FUZZ_RANGES: [start, end, factor].
  const FUZZ_RANGES = [[2.5, 7, 0.15], [7, 20, 0.1], [20, Infinity, 0.05]];

  // Python's round(): halves go to the even neighbour.
  function pyRound(x) {
    const floor = Math.floor(x);
    const rest = x - floor;
    if (rest > 0.5) return floor + 1;
    if (rest < 0.5) return floor;
    return floor % 2 === 0 ? floor : floor + 1;
  }

  const algorithms = new Map();

  function algorithmFor(config) {
    const key = JSON.stringify(config);
    if (!algorithms.has(key)) {
      algorithms.set(key, new FSRS.FSRSAlgorithm({
        w: config.parameters,
        request_retention: config.desired_retention,
        maximum_interval: config.maximum_interval,
        enable_fuzz: false,
        enable_short_term: true,
        learning_steps: config.learning_steps_minutes.map((m) => `${m}m`),
        relearning_steps: config.relearning_steps_minutes.map((m) => `${m}m`),
      }));
    }
    return algorithms.get(key);
  }

  function intervalDays(config, stability) {
    const decay = -config.parameters[20];
    const factor = 0.9 ** (1 / decay) - 1;
    const days = pyRound((stability / factor) * (config.desired_retention ** (1 / decay) - 1));
    return Math.min(Math.max(days, 1), config.maximum_interval);
  }

  function fuzzed(config, days, draw) {
    if (days < 2.5) return days;
    let delta = 1.0;
    for (const [start, end, factor] of FUZZ_RANGES) {
      delta += factor * Math.max(Math.min(days, end) - start, 0.0);
    }
    const high = Math.min(pyRound(days + delta), config.maximum_interval);
    const low = Math.min(Math.max(2, pyRound(days - delta)), high);
    return Math.min(pyRound(draw * (high - low + 1) + low), config.maximum_interval);
  }

  // Grade `card` (the stored state, or null for a new card) with `rating` at `now` (a Date).
  // `draw` is the server's fuzz draw for this review (null: no fuzz). Returns the new stored
  // state and the interval in milliseconds.
  function review(config, card, rating, now, draw) {
    const algorithm = algorithmFor(config);
    const w = algorithm.parameters.w;
    const before = card || { state: LEARNING, step: 0, stability: null, difficulty: null, last_review: null, reps: 0, lapses: 0 };
    let { state, step, stability, difficulty } = before;
    const last = before.last_review ? new Date(before.last_review) : null;
    const elapsed = last ? Math.floor((now - last) / DAY) : null;
    const shortTerm = elapsed !== null && elapsed < 1;
    const learningSteps = config.learning_steps_minutes.map((m) => m * MINUTE);
    const relearningSteps = config.relearning_steps_minutes.map((m) => m * MINUTE);

    function longTermStability() {
      const recall = algorithm.forgetting_curve(Math.max(0, elapsed), stability);
      const next = rating === AGAIN
        ? Math.min(
          algorithm.next_forget_stability(difficulty, stability, recall),
          stability / Math.exp(w[17] * w[18]))
        : algorithm.next_recall_stability(difficulty, stability, recall, rating);
      return Math.max(next, 0.001);
    }

    function update() {
      stability = shortTerm
        ? algorithm.next_short_term_stability(stability, rating)
        : longTermStability();
      difficulty = algorithm.next_difficulty(difficulty, rating);
    }

    function graduate() {
      state = REVIEW;
      step = null;
      return intervalDays(config, stability) * DAY;
    }

    // Learning and relearning differ only in their steps.
    function stepped(steps) {
      if (steps.length === 0 || (step >= steps.length && rating !== AGAIN)) return graduate();
      if (rating === AGAIN) {
        step = 0;
        return steps[0];
      }
      if (rating === HARD) {
        if (step === 0 && steps.length === 1) return steps[0] * 1.5;
        if (step === 0) return (steps[0] + steps[1]) / 2;
        return steps[step];
      }
      if (rating === GOOD) {
        if (step + 1 === steps.length) return graduate();
        step += 1;
        return steps[step];
      }
      return graduate();
    }

    let interval;
    if (state === LEARNING) {
      if (stability === null || difficulty === null) {
        stability = Math.max(w[rating - 1], 0.001);
        difficulty = Math.min(Math.max(algorithm.init_difficulty(rating), 1), 10);
      } else {
        update();
      }
      interval = stepped(learningSteps);
    } else if (state === REVIEW) {
      if (shortTerm) {
        stability = algorithm.next_short_term_stability(stability, rating);
      } else {
        stability = longTermStability();
      }
      difficulty = algorithm.next_difficulty(difficulty, rating);
      if (rating === AGAIN && relearningSteps.length > 0) {
        state = RELEARNING;
        step = 0;
        interval = relearningSteps[0];
      } else {
        interval = intervalDays(config, stability) * DAY;
      }
    } else {
      update();
      interval = stepped(relearningSteps);
    }

    if (config.fuzz && state === REVIEW && draw !== null && draw !== undefined) {
      interval = fuzzed(config, Math.floor(interval / DAY), draw) * DAY;
    }
    const lapsed = card !== null && card.state === REVIEW && rating === AGAIN;
    return {
      interval,
      state: {
        state,
        step,
        stability,
        difficulty,
        due: new Date(now.getTime() + interval).toISOString(),
        last_review: now.toISOString(),
        reps: before.reps + 1,
        lapses: before.lapses + (lapsed ? 1 : 0),
      },
    };
  }

  // A button's label, as app.srs.scheduling.describe_interval writes it.
  function describe(interval) {
    const seconds = Math.max(interval / 1000, 0);
    if (seconds < 3600) return `${Math.max(1, pyRound(seconds / 60))}m`;
    if (seconds < 86400) return `${pyRound(seconds / 3600)}h`;
    const days = seconds / 86400;
    if (days < 30) return `${pyRound(days)}d`;
    if (days < 365) return `${(days / 30).toFixed(1)}mo`;
    return `${(days / 365).toFixed(1)}y`;
  }

  return { review, describe, LEARNING, REVIEW, RELEARNING };
});
