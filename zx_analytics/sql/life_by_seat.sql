SELECT seat AS key,
       count(*) AS games,
       CAST(sum(opp_turns) AS BIGINT) AS opponent_turns,
       CAST(sum(damage_taken) AS BIGINT) AS damage,
       CAST(sum(life_ignitions) AS BIGINT) AS ignitions,
       count(*) FILTER (WHERE result IS NOT NULL AND was_behind) AS behind_games,
       count(*) FILTER (WHERE result = 'win' AND was_behind) AS comebacks
FROM seats
WHERE {where}
GROUP BY ALL
