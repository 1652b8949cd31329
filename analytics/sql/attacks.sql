WITH per_match AS (
    SELECT {key} AS key,
           a.match_no,
           count(*) AS attacks,
           count(*) FILTER (WHERE a.outcome = 'destroyed') AS destroyed,
           count(*) FILTER (WHERE a.outcome = 'survived') AS survived,
           count(*) FILTER (WHERE a.outcome = 'player_damaged') AS player_damaged,
           count(*) FILTER (WHERE a.outcome = 'no_damage_overboost') AS no_damage_overboost,
           count(*) FILTER (WHERE a.outcome = 'fizzled') AS fizzled,
           count(*) FILTER (WHERE a.outcome IS NULL) AS unresolved,
           sum(a.event_count) AS events_played
    FROM attacks a
    JOIN filtered_seats($since, $until, $event, $deck, $player) s
      ON s.match_no = a.match_no AND s.side = a.player
    GROUP BY ALL
)
SELECT key,
       CAST(sum(attacks) AS BIGINT) AS attacks,
       count(*) AS games,
       CAST(sum(destroyed) AS BIGINT) AS destroyed,
       CAST(sum(survived) AS BIGINT) AS survived,
       CAST(sum(player_damaged) AS BIGINT) AS player_damaged,
       CAST(sum(no_damage_overboost) AS BIGINT) AS no_damage_overboost,
       CAST(sum(fizzled) AS BIGINT) AS fizzled,
       CAST(sum(unresolved) AS BIGINT) AS unresolved,
       CAST(sum(destroyed) + sum(player_damaged) AS BIGINT) AS successes,
       CAST(sum(events_played) AS BIGINT) AS events_played
FROM per_match
GROUP BY ALL
