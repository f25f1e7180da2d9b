# The examples import each other as top-level modules, as files of your own project would.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
