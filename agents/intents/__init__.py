"""Intent recognition: rules, cache, LLM and the offline classifier; entities; emotion."""
