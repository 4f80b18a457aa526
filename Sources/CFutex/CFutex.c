// The module's functions are inline, in include/CFutex.h; the package manager needs one source file.
#include "CFutex.h"
