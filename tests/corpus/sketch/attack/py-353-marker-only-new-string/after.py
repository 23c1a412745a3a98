import os
import sys
import json

x = 1
