-- life damage with its side's filter columns (seats): zx stats life --by turn without the join
CREATE TABLE {derived}.life_seats AS
SELECT {seat_columns},
       l.turn,
       l.ig_played
FROM life l
JOIN seats s ON s.match_no = l.match_no AND s.side = l.player
