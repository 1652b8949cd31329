SELECT {key} AS key,
       count(*) AS attacks,
       count(*) FILTER (WHERE {first}) AS games,
       count(*) FILTER (WHERE a.outcome = 'destroyed') AS destroyed,
       count(*) FILTER (WHERE a.outcome = 'survived') AS survived,
       count(*) FILTER (WHERE a.outcome = 'player_damaged') AS player_damaged,
       count(*) FILTER (WHERE a.outcome = 'no_damage_overboost') AS no_damage_overboost,
       count(*) FILTER (WHERE a.outcome = 'fizzled') AS fizzled,
       count(*) FILTER (WHERE a.outcome IS NULL) AS unresolved,
       count(*) FILTER (WHERE a.outcome IN ('destroyed', 'player_damaged')) AS successes,
       CAST(sum(a.event_count) AS BIGINT) AS events_played
FROM attacks a
JOIN (SELECT match_no, side FROM seats WHERE {where}) s
  ON s.match_no = a.match_no AND s.side = a.player
GROUP BY ALL
