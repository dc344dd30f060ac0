from .cli import main  # checks the Voila version before anything imports Voila

main()
