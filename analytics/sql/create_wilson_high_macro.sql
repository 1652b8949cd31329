CREATE OR REPLACE MACRO wilson_high(k, n) AS
CASE WHEN n > 0 THEN
    (CAST(k AS DOUBLE) / n + 1.959963984540054 ^ 2 / (2.0 * n)
     + 1.959963984540054 * sqrt(CAST(k AS DOUBLE) / n * (1 - CAST(k AS DOUBLE) / n) / n
                               + 1.959963984540054 ^ 2 / (4.0 * CAST(n AS DOUBLE) * n)))
    / (1 + 1.959963984540054 ^ 2 / n)
END
