"""What the pages hold: the reader of the record, the pages and views, the assets, exports, the
live feed, the page's language and numbers."""
