"""The LLM behind an OpenAI-compatible API: client, circuit breaker, model router, prompts."""
