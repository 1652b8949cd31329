-- attacks with their side's filter columns (seats) and the three keys of zx stats attacks as ENUMs
CREATE TABLE {derived}.attack_seats AS
SELECT {seat_columns},
       CAST(a.attacker_card AS {derived}.card_t) AS card,
       CAST(a.attacker_square AS {derived}.square_t) AS square,
       CAST(CASE WHEN a.target_kind = 'player' THEN 'player' ELSE a.target_card END AS {derived}.card_t) AS target,
       CAST(a.outcome AS {derived}.outcome_t) AS outcome,
       a.first_of_card,
       a.first_of_square,
       a.first_of_target,
       a.event_count
FROM attacks a
JOIN seats s ON s.match_no = a.match_no AND s.side = a.player
