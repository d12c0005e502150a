SELECT 1, -2147483648, 3000000000L, 1.50, 1e3, 2F, 7BD, X'CAFE', 'it\'s' "dq", r'raw\',
  DATE '2026-06-08', TIMESTAMP '2026-06-08T09:00:00Z', INTERVAL '1 day 2 hours', INTERVAL 5 MINUTES,
  coalesce(a, b), f(x => 1, y => 'z'), count(*), transform(xs, x -> x + 1), (a, b) -> a,
  a <=> b, a IS NOT DISTINCT FROM b, a NOT LIKE 'x%' ESCAPE '!', s RLIKE '^a', m['k'][0].f,
  TRY_CAST(v AS MAP<STRING, ARRAY<STRUCT<a: INT>>>), a DIV 2 % 3 | 4 & 5 ^ 6, ~a, NOT !b
