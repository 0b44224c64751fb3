"""What a request passes before a page: the guard and the limits, refusals, forms and query
values, the HTTP protocol's timeouts."""
