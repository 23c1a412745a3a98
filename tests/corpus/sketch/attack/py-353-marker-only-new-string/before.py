import os
import sys

x = 1
