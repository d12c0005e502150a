SET pipelines.trigger.interval = 10 seconds;
USE CATALOG sales;
CREATE OR REFRESH STREAMING TABLE silver.orders (
  CONSTRAINT valid_id EXPECT (event_id IS NOT NULL) ON VIOLATION DROP ROW,
  CONSTRAINT positive EXPECT (amount > 0 AND amount BETWEEN 0.01 AND 1e6),
  CONSTRAINT known EXPECT (status IN ('created', 'paid') OR status IS NULL) ON VIOLATION FAIL UPDATE
)
PARTITIONED BY (event_date)
COMMENT 'parsed'
TBLPROPERTIES ('quality' = 'silver', delta.appendOnly = true)
AS SELECT e.*, CAST(e.event_time AS DATE) AS event_date,
  CASE WHEN e.amount > 100 THEN 'big' ELSE 'small' END AS size, raw:items[0].price::double AS p
FROM STREAM(LIVE.orders_raw) WATERMARK event_time DELAY OF INTERVAL 30 MINUTES AS src
WHERE e.event_id IS NOT NULL AND -x::int <> 3 /* comment */ -- trailing
