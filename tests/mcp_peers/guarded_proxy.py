"""quantity-guard-mcp with tests/mcp_peers/fake_policy.py standing in for
quantity_guard.mcp.policy. Usage: python guarded_proxy.py [quantity-guard-mcp arguments]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_policy  # noqa: E402

sys.modules["quantity_guard.mcp.policy"] = fake_policy

from quantity_guard.mcp.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
