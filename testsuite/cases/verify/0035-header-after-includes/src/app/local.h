#define LOCAL_ZERO 0
