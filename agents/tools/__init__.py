"""The store tools (seed 001 + τ-bench), registered with JSON schemas usable as OpenAI tools."""

from agents.tools import actions, catalogue, orders  # noqa: F401 - imported for their registrations
from agents.tools.base import TOOLS, Tool, ToolContext, ToolError, tool_call

__all__ = ["TOOLS", "Tool", "ToolContext", "ToolError", "tool_call"]
