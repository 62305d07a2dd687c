/* The version printed by gen --version and written into generated files. */
#ifndef BENANZA_VERSION_H
#define BENANZA_VERSION_H

#define BENANZA_VERSION "0.1.0"

#endif
