//! The flashcards' schedule: SuperMemo's **SM-2**, as Piotr Woźniak published it (*Application
//! of a computer to improve the results obtained in working with the SuperMemo method*, 1990;
//! <https://super-memory.com/english/ol/sm2.htm>). Pure: the time is given.
//!
//! The published steps, and what Tabiya does at each:
//!
//! 1. Knowledge is split into items: an item is a card (a position and its moves).
//! 2. Each item starts with an E-Factor of 2.5.
//! 3. Intervals: I(1) = 1 day, I(2) = 6 days, and for n > 2, I(n) = I(n−1) × EF, "if the
//!    interval is a fraction, round it up to the nearest integer". The E-Factor used is the
//!    item's after the answer that sets the interval (step 5 comes before the next
//!    interval is needed).
//! 4. Each answer gets a quality q from 0 to 5: 5 perfect; 4 correct after a hesitation; 3
//!    correct with serious difficulty; 2 incorrect, the correct one seemed easy to recall; 1
//!    incorrect, the correct one remembered; 0 complete blackout. Tabiya grades a right
//!    move 4 (5 when the player marks it `!`, 3 when `?`) and a wrong one 1.
//! 5. After each answer EF' = EF + (0.1 − (5 − q) × (0.08 + (5 − q) × 0.02)), at least 1.3.
//!    Its steps are multiples of 0.02 (+0.10, 0, −0.14, −0.32, −0.54, −0.80 for q = 5…0), so
//!    Tabiya keeps it exactly, in hundredths.
//! 6. An answer with q < 3 starts the repetitions again (n = 0: the next intervals are I(1),
//!    I(2)…) "without changing the E-Factor": the one step 5 gave is kept, not reset to 2.5.
//!    Tabiya counts such an answer as a lapse.
//! 7. Items graded below 4 are asked again the same day until they score 4 or more. Tabiya
//!    marks them (`again`) and lists them as due after the cards whose day has come; these
//!    same-day answers (*drills*) are kept in the history but move no interval, E-Factor or
//!    due date.
//!
//! A card is due at its last scheduled answer's time plus its interval; a new card at once.

use tabiya_db::CardSchedule;

/// The E-Factor of a new card, in hundredths.
pub const START_EASINESS: u32 = 250;
/// The lowest E-Factor, in hundredths.
pub const MIN_EASINESS: u32 = 130;

const DAY: u64 = 86_400;

/// The schedule of a card made at `now`: due at once.
pub fn new_card(now: u64) -> CardSchedule {
    CardSchedule {
        repetitions: 0,
        easiness: START_EASINESS,
        interval_days: 0,
        due: now,
        again: false,
        reviews: 0,
        lapses: 0,
        last_review: None,
    }
}

/// Step 5: the E-Factor (hundredths) after an answer of quality `q` (0–5).
pub fn easiness_after(easiness: u32, q: u8) -> u32 {
    let miss = i64::from(5 - q.min(5));
    // 100 × (0.1 − m × (0.08 + m × 0.02)) = 10 − m × (8 + 2m)
    let step = 10 - miss * (8 + 2 * miss);
    (i64::from(easiness) + step).max(i64::from(MIN_EASINESS)) as u32
}

/// Whether an answer at `now` is a same-day repetition (step 7): the card was graded below
/// 4 and its next scheduled day has not come.
pub fn is_drill(s: &CardSchedule, now: u64) -> bool {
    s.again && s.due > now
}

/// The schedule after an answer of quality `q` (0–5) at `now`.
pub fn answer(s: &CardSchedule, q: u8, now: u64) -> CardSchedule {
    let mut next = s.clone();
    next.last_review = Some(now);
    if is_drill(s, now) {
        next.again = q < 4;
        return next;
    }
    next.easiness = easiness_after(s.easiness, q);
    if q >= 3 {
        next.interval_days = match s.repetitions {
            0 => 1,
            1 => 6,
            _ => {
                let days = u64::from(s.interval_days) * u64::from(next.easiness);
                u32::try_from(days.div_ceil(100)).unwrap_or(u32::MAX)
            }
        };
        next.repetitions = s.repetitions.saturating_add(1);
    } else {
        next.repetitions = 0;
        next.interval_days = 1;
        next.lapses = s.lapses.saturating_add(1);
    }
    next.again = q < 4;
    next.due = now.saturating_add(u64::from(next.interval_days) * DAY);
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_780_000_000;

    #[test]
    fn easiness_steps_by_hand() {
        // EF' = EF + (0.1 − (5 − q)(0.08 + (5 − q) 0.02)):
        // q=5: +0.10; q=4: 0; q=3: 0.1 − 2(0.12) = −0.14; q=2: 0.1 − 3(0.14) = −0.32;
        // q=1: 0.1 − 4(0.16) = −0.54; q=0: 0.1 − 5(0.18) = −0.80.
        let from_2_5: Vec<u32> = (0..=5).rev().map(|q| easiness_after(250, q)).collect();
        assert_eq!(from_2_5, [260, 250, 236, 218, 196, 170]);
        // Never below 1.3.
        assert_eq!(easiness_after(140, 3), 130);
        assert_eq!(easiness_after(130, 0), 130);
    }

    #[test]
    fn intervals_by_hand() {
        let s0 = new_card(T0);
        assert_eq!(s0.due, T0);
        // q=4 three times: 1, 6, then 6 × 2.5 = 15 days; EF stays 2.5.
        let s1 = answer(&s0, 4, T0);
        assert_eq!((s1.repetitions, s1.interval_days, s1.easiness), (1, 1, 250));
        assert_eq!(s1.due, T0 + 86_400);
        assert!(!s1.again);
        let t2 = s1.due;
        let s2 = answer(&s1, 4, t2);
        assert_eq!((s2.repetitions, s2.interval_days), (2, 6));
        let t3 = s2.due;
        let s3 = answer(&s2, 4, t3);
        assert_eq!((s3.repetitions, s3.interval_days), (3, 15));
        assert_eq!(s3.due, t3 + 15 * 86_400);
        // q=5: EF 2.6, interval ⌈15 × 2.6⌉ = 39.
        let t4 = s3.due;
        let s4 = answer(&s3, 5, t4);
        assert_eq!((s4.easiness, s4.interval_days), (260, 39));
        // q=3: EF 2.6 − 0.14 = 2.46, interval ⌈39 × 2.46⌉ = ⌈95.94⌉ = 96; asked again today.
        let t5 = s4.due + 3_600;
        let s5 = answer(&s4, 3, t5);
        assert_eq!(
            (s5.easiness, s5.interval_days, s5.repetitions),
            (246, 96, 5)
        );
        assert!(s5.again);
        assert_eq!(s5.lapses, 0);
        // The same day: drills move nothing but the flag (step 7).
        let d1 = answer(&s5, 3, t5 + 60);
        assert!(d1.again);
        assert_eq!(
            (d1.easiness, d1.interval_days, d1.due, d1.repetitions),
            (246, 96, s5.due, 5)
        );
        let d2 = answer(&d1, 4, t5 + 120);
        assert!(!d2.again);
        assert_eq!((d2.due, d2.last_review), (s5.due, Some(t5 + 120)));
        // A lapse (q=1) when the day comes: n back to 0, one day, EF 2.46 − 0.54 = 1.92.
        let t6 = d2.due;
        let s6 = answer(&d2, 1, t6);
        assert_eq!(
            (s6.repetitions, s6.interval_days, s6.easiness, s6.lapses),
            (0, 1, 192, 1)
        );
        assert!(s6.again);
        // Then right again: I(1) = 1, I(2) = 6 with the EF kept (1.92), then ⌈6 × 1.92⌉ = 12.
        let s7 = answer(&s6, 4, s6.due);
        let s8 = answer(&s7, 4, s7.due);
        let s9 = answer(&s8, 4, s8.due);
        assert_eq!(
            [s7.interval_days, s8.interval_days, s9.interval_days],
            [1, 6, 12]
        );
        assert_eq!(s9.easiness, 192);
    }

    #[test]
    fn a_card_failed_and_not_drilled_is_reviewed_when_its_day_comes() {
        let s = answer(&new_card(T0), 1, T0);
        assert!(s.again);
        // Not repeated that day: the next day's answer is a scheduled one again.
        let next = answer(&s, 4, s.due + 10);
        assert_eq!((next.repetitions, next.interval_days), (1, 1));
        assert_eq!(next.easiness, 196);
    }
}
