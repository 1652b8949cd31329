-- exactly 1 at k = n (where rounding left 0.9999999999999999 or 1.0000000000000002), never above 1
CREATE OR REPLACE MACRO wilson_high(k, n) AS
CASE WHEN n > 0 AND k IS NOT NULL THEN
    CASE WHEN k = n THEN CAST(1 AS DOUBLE) ELSE least(CAST(1 AS DOUBLE),
    (CAST(k AS DOUBLE) / n + 1.959963984540054 ^ 2 / (2.0 * n)
     + 1.959963984540054 * sqrt(CAST(k AS DOUBLE) / n * (1 - CAST(k AS DOUBLE) / n) / n
                               + 1.959963984540054 ^ 2 / (4.0 * CAST(n AS DOUBLE) * n)))
    / (1 + 1.959963984540054 ^ 2 / n)) END
END
