// The same program as lang_test.c, compiled as C++: the header must be valid C++11.
#include "lang_test.c"
