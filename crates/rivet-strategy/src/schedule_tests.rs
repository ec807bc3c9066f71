//! The adaptive schedule on simulated turns: who gets the time as rewards come and go.

use super::*;

/// Runs `turns` turns of a schedule over strategies whose turns each cost `costs[i]` and
/// bring `reward(i, t)` goals (t: the turn number); returns each one's share of the cost.
fn simulate(
    priors: &[f64],
    costs: &[f64],
    turns: usize,
    reward: impl Fn(usize, usize) -> f64,
) -> Vec<f64> {
    let whole: f64 = 100.0;
    let mut s = Schedule::new(Cost { whole }, priors);
    let done = vec![false; priors.len()];
    let mut spent = vec![0.0; priors.len()];
    for t in 0..turns {
        let i = s.next(&done).expect("a strategy");
        let mut rewards = vec![0.0; priors.len()];
        rewards[i] = reward(i, t);
        s.record(i, costs[i], &rewards, &done);
        spent[i] += costs[i];
    }
    let total: f64 = spent.iter().sum();
    spent.iter().map(|x| x / total).collect()
}

#[test]
fn without_rewards_the_time_follows_the_priors() {
    let shares = simulate(&[2.0, 1.0, 1.0], &[0.1, 0.5, 0.3], 2_000, |_, _| 0.0);
    assert!((shares[0] - 0.5).abs() < 0.05, "{shares:?}");
    assert!((shares[1] - 0.25).abs() < 0.05, "{shares:?}");
    assert!((shares[2] - 0.25).abs() < 0.05, "{shares:?}");
}

#[test]
fn a_strategy_that_pays_gets_most_of_the_time_and_the_others_keep_their_floor() {
    // Strategy 0 covers a goal every turn; 1 and 2 never do.
    let shares = simulate(&[1.0, 1.0, 1.0], &[0.2, 0.2, 0.2], 3_000, |i, _| {
        if i == 0 {
            1.0
        } else {
            0.0
        }
    });
    assert!(shares[0] > 0.7, "{shares:?}");
    for s in &shares[1..] {
        assert!(
            *s >= IDLE_FLOOR * 0.9,
            "asked less often, not never: {shares:?}"
        );
        assert!(*s < FLOOR, "idle past the protection: {shares:?}");
    }
}

#[test]
fn an_idle_strategy_keeps_the_full_floor_while_it_warms_up_or_pays_now_and_then() {
    // Strategy 0 covers a goal every turn; 1 warms up throughout (SUSHI's exploration); 2
    // covers one goal every 5 of its turns (one in each quarter of the whole at least).
    let whole = 100.0;
    let mut s = Schedule::new(Cost { whole }, &[1.0, 1.0, 1.0]);
    s.set_warming(&[false, true, false]);
    let done = [false; 3];
    let mut spent = [0.0; 3];
    let mut turns = [0usize; 3];
    for _ in 0..3_000 {
        let i = s.next(&done).expect("a strategy");
        turns[i] += 1;
        let mut rewards = [0.0; 3];
        rewards[i] = match i {
            0 => 1.0,
            2 if turns[2] % 5 == 0 => 1.0,
            _ => 0.0,
        };
        s.record(i, 0.2, &rewards, &done);
        spent[i] += 0.2;
    }
    let total: f64 = spent.iter().sum();
    let shares: Vec<f64> = spent.iter().map(|x| x / total).collect();
    assert!(shares[1] >= FLOOR * 0.9, "{shares:?}");
    assert!(shares[2] >= FLOOR * 0.9, "{shares:?}");
}

#[test]
fn a_technique_that_starts_paying_late_is_noticed() {
    // 0 pays for the first 500 turns, then nothing; 1 pays only after that.
    let whole = 100.0;
    let mut s = Schedule::new(Cost { whole }, &[2.0, 1.0]);
    let done = [false, false];
    let mut late_spent = [0.0, 0.0];
    for t in 0..3_000 {
        let i = s.next(&done).expect("a strategy");
        let paying = if t < 500 { 0 } else { 1 };
        let mut rewards = [0.0, 0.0];
        if i == paying {
            rewards[i] = 1.0;
        }
        s.record(i, 0.1, &rewards, &done);
        if t >= 2_000 {
            late_spent[i] += 0.1;
        }
    }
    let share_1 = late_spent[1] / (late_spent[0] + late_spent[1]);
    assert!(
        share_1 > 0.6,
        "the late payer's share at the end: {share_1}"
    );
}

#[test]
fn a_done_strategy_gets_no_turn_and_no_share() {
    let s = Schedule::new(Cost { whole: 10.0 }, &[1.0, 1.0]);
    assert_eq!(s.next(&[true, false]), Some(1));
    assert_eq!(s.next(&[true, true]), None);
    let shares = s.shares(&[false, true]);
    assert_eq!(shares, vec![1.0, 0.0]);
}

#[test]
fn free_turns_are_not_free() {
    // A strategy whose turns take no time still pays a little for each: it cannot take all
    // the turns.
    let mut s = Schedule::new(Cost { whole: 60.0 }, &[1.0, 1.0]);
    let done = [false, false];
    let mut turns = [0usize, 0];
    for _ in 0..1_000 {
        let i = s.next(&done).expect("a strategy");
        turns[i] += 1;
        let seconds = if i == 0 { 0.0 } else { 0.05 };
        s.record(i, s.measure().of_turn(seconds), &[0.0, 0.0], &done);
    }
    assert!(turns[1] >= 30, "{turns:?}");
}

#[test]
fn the_same_costs_and_rewards_give_the_same_turns() {
    let run = || {
        let mut s = Schedule::new(Cost { whole: 1_000.0 }, &[2.0, 1.0, 1.0]);
        let done = [false, false, false];
        (0..500)
            .map(|t| {
                let i = s.next(&done).expect("a strategy");
                let cost = s.measure().of_turn((t % 7) as f64 / 100.0);
                let mut rewards = [0.0; 3];
                rewards[i] = f64::from(u8::from(t % 5 == i));
                s.record(i, cost, &rewards, &done);
                i
            })
            .collect::<Vec<usize>>()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_delayed_reward_keeps_its_prior_share_of_the_first_quarter_and_then_pays() {
    // 0 pays every turn from the start; 1 pays nothing for its first 6 units of cost (an
    // exploration), which it must be given although 0 is paying all the while, and pays as
    // well as 0 after that.
    let whole = 100.0;
    let mut s = Schedule::new(Cost { whole }, &[2.0, 1.0]);
    let done = [false, false];
    let (mut elapsed, mut spent) = (0.0, [0.0, 0.0]);
    let (mut first_quarter, mut second_half) = ([0.0, 0.0], [0.0, 0.0]);
    while elapsed < whole {
        let i = s.next(&done).expect("a strategy");
        let reward = f64::from(u8::from(i == 0 || spent[1] >= 6.0));
        let mut rewards = [0.0, 0.0];
        rewards[i] = reward;
        s.record(i, 0.5, &rewards, &done);
        spent[i] += 0.5;
        if elapsed < whole / 4.0 {
            first_quarter[i] += 0.5;
        } else if elapsed >= whole / 2.0 {
            second_half[i] += 0.5;
        }
        elapsed += 0.5;
    }
    assert!(
        first_quarter[1] >= whole / 4.0 / 3.0 - 1.0,
        "its prior third of the first quarter: {first_quarter:?}"
    );
    assert!(
        second_half[1] >= whole / 2.0 / 4.0,
        "paying as well as the other, it keeps near its prior third: {second_half:?}"
    );
}

#[test]
fn a_strategy_warming_up_gets_half_the_time_within_its_protection() {
    let whole = 100.0;
    let mut s = Schedule::new(Cost { whole }, &[2.0, 1.0, 1.0]);
    let done = [false, false, false];
    s.set_warming(&[false, true, false]);
    let shares = s.shares(&done);
    assert!((shares[1] - WARM_UP).abs() < 1e-9, "{shares:?}");
    assert!(
        (shares.iter().sum::<f64>() - 1.0).abs() < 1e-9,
        "{shares:?}"
    );
    // Warming up and paying nothing, only strategy 0 paying: past its prior share of the
    // first quarter (a quarter of 25), strategy 1 is down to what its reward earns.
    let mut spent = [0.0; 3];
    for _ in 0..400 {
        let i = s.next(&done).expect("a strategy");
        let mut rewards = [0.0; 3];
        rewards[0] = f64::from(u8::from(i == 0));
        s.record(i, 0.25, &rewards, &done);
        spent[i] += 0.25;
    }
    let shares = s.shares(&done);
    assert!(shares[1] < 0.2, "{shares:?}");
    assert!(spent[1] < whole / 4.0, "no longer half the time: {spent:?}");
    assert!(spent[1] > whole / 4.0 / 4.0, "its protection: {spent:?}");
}

#[test]
fn beside_the_search_alone_the_warm_up_keeps_half_the_time() {
    // `--strategy symbolic`: the search and the technique asked for. Its warm-up keeps half
    // the time past its prior protection, paying nothing.
    let mut s = Schedule::new(Cost { whole: 100.0 }, &[2.0, 1.0]);
    let done = [false, false];
    s.set_warming(&[false, true]);
    for _ in 0..400 {
        let i = s.next(&done).expect("a strategy");
        let mut rewards = [0.0; 2];
        rewards[0] = f64::from(u8::from(i == 0));
        s.record(i, 0.25, &rewards, &done);
    }
    let shares = s.shares(&done);
    assert!((shares[1] - WARM_UP).abs() < 1e-9, "{shares:?}");
}
