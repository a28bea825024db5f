def healthz(request): pass
