# Type stubs of tunelab._frames (pandas is optional: a table is typed Any).
from typing import Any, Dict, Literal, Optional

# Every table name of every kind (tunelab.to_frame's docstring says which kind has which).
TableName = Literal["arms", "rounds", "traces", "evaluation", "regrets", "methods", "runs", "summary", "windows",
                    "integrand"]

def to_frame(report: Dict[str, Any], table: Optional[TableName] = ...) -> Any: ...
